"""Settings of the schema catalogue, the semantic file and the schema in the prompt."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings


class SchemaSettings(BaseSettings):
    """The catalogue is built in the background; the prompt changes only with a budget."""

    schema_catalog: bool = Field(
        default=True,
        description="Build the schema catalogue (tables, keys, comments, row estimates, "
        "low-cardinality values) in the background at start-up, shared by every worker "
        "through the memory database; GET /api/v0/schema shows it. Off: no catalogue.",
    )
    schema_values_max_distinct: int = Field(
        default=200,
        ge=0,
        description="Text columns with at most this many distinct values have them kept "
        "(value linking, search); 0 reads no values.",
    )
    schema_refresh_seconds: float = Field(
        default=0.0,
        ge=0,
        description="Rebuild the catalogue this often (schema drift is checked on each "
        "rebuild); 0 rebuilds only at start-up and on POST /api/v0/schema/refresh.",
    )
    schema_prompt_budget: int = Field(
        default=12000,
        ge=0,
        description="Characters of schema the system prompt may hold: the whole readable "
        "schema when it fits (the sample's is about 1,700; the stable part of the prompt, "
        "so the model needs no list_tables or describe_tables call), else the tables "
        "retrieved for each question (at most 4,000 characters, beside the question) plus "
        "the search_schema tool. 0 leaves the schema out (the model lists and describes "
        "the tables itself, one or two more calls per question).",
    )
    semantic_file: Path | None = Field(
        default=None,
        description="YAML of table and column descriptions, synonyms, value synonyms, "
        "metrics, join paths and hidden tables (docs/schema.md), checked against the "
        "catalogue; e.g. config/semantic.sample.yaml for the sample database.",
    )

    instructions_as_of: date | None = Field(
        default=None,
        description="The date whose business instructions (the semantic file's "
        "`instructions`, each with valid_from/valid_to) go into the prompt; unset: today. "
        "`python -m react_agent.eval --as-of DATE` sets it.",
    )

    @field_validator("semantic_file", mode="before")
    @classmethod
    def _blank_file_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

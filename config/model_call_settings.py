"""Settings of how many model calls a question takes: check_sql, verified answers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings


class ModelCallSettings(BaseSettings):
    """Fewer model calls: no separate check round, verified questions without SQL writing."""

    sql_check_tool: Literal["off", "approval", "always"] = Field(
        default="approval",
        description="Whether the model gets check_sql (a statement checked and planned, not "
        "run). run_sql makes the same checks (the guard, the caller's scope) and returns a "
        "refused or failing statement as its result, so a simple question takes two model "
        "calls without it. approval (the default): only runs that stop for SQL approval get "
        "it, so the SQL a person sees has been checked; always: every run (one more call "
        "when the model uses it); off: no run.",
    )
    verified_answers: Literal["off", "answer", "direct"] = Field(
        default="answer",
        description="A question that matches a verified question→SQL example (the same "
        "words once case, spaces, punctuation and full/half width are set aside) runs the "
        "example's SQL without asking the model for SQL, under the asker's scope and the "
        "guard; answer: the model is called once to phrase the answer; direct: no model "
        "call, the answer is the rows and a fixed sentence; off: the model writes the SQL "
        "of every question. react_agent_meta.verified_example_id names the example.",
    )
    verified_near_match: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="Also take a verified example whose question differs from the asked one "
        "only in a stored value (华东 for 华北, linked through the schema catalogue's value "
        "links to the same column) when the two questions are at least this similar "
        "(0..1, difflib ratio); the value is substituted in the example's SQL, which then "
        "passes the guard and the scope as any other. 0 turns near matches off.",
    )

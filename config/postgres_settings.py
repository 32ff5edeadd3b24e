"""Settings of the PostgreSQL pools: the data database, the checkpointer and the run events."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings


class PostgresSettings(BaseSettings):
    """How each PostgreSQL pool of a process connects, sizes itself and prepares statements."""

    postgres_pool_min_size: int = Field(
        default=1, ge=0, description="Connections each PostgreSQL pool keeps open when idle."
    )
    postgres_pool_max_size: int = Field(
        default=10,
        ge=2,
        description="Most connections per PostgreSQL pool. A running question borrows one "
        "only to read or write its checkpoints (the thread claims of a process share one "
        "session of their own, and its LISTEN one more).",
    )
    postgres_pool_max_lifetime: float = Field(
        default=1800.0, gt=0, description="Seconds after which a pooled connection is replaced."
    )
    postgres_pool_max_idle: float = Field(
        default=300.0, gt=0, description="Seconds an idle connection above the minimum is kept."
    )
    postgres_prepare_threshold: int | None = Field(
        default=5,
        ge=0,
        description="Executions on a connection before psycopg prepares a query (PostgreSQL "
        "then parses and plans it once; a third of its CPU per question); none never "
        "prepares, as PgBouncer in transaction mode before 1.21 (or with "
        "max_prepared_statements = 0) needs; 0 prepares every query.",
    )
    postgres_connect_timeout: float = Field(
        default=5.0,
        gt=0,
        description="Seconds to wait for a PostgreSQL connection (new, or free in the pool) "
        "before answering 503.",
    )

    @field_validator("postgres_prepare_threshold", mode="before")
    @classmethod
    def _none_disables_preparing(cls, value: object) -> object:
        # POSTGRES_PREPARE_THRESHOLD=none (or empty) is None, not a parse error.
        if isinstance(value, str) and value.strip().lower() in ("", "none", "null"):
            return None
        return value

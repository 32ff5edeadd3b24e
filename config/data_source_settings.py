"""Settings of the MySQL/MariaDB and DuckDB data sources and of per-user datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings


class DataSourceSettings(BaseSettings):
    """MySQL pool, DuckDB limits and uploaded datasets (all off or harmless by default)."""

    data_sources: str | None = Field(
        default=None,
        description="Several named data sources instead of DATA_DATABASE_URL: "
        "`name=url;name=url` or the path of a YAML file of `sources:` (name, url, "
        "description). Tables are then `name.table`; a question across sources runs in an "
        "in-process DuckDB that attaches each read-only (docs/databases.md).",
    )
    data_engine: Literal["native", "generic"] = Field(
        default="native",
        description="Which engine opens DATA_DATABASE_URL: native (this service's own for "
        "sqlite, postgresql, mysql, duckdb and their families; anything else SQLAlchemy "
        "reads goes to the generic engine) or generic (the SQLAlchemy engine for every "
        "URL, e.g. to compare it with the native one).",
    )
    mysql_pool_max_size: int = Field(
        default=10,
        ge=1,
        description="Most connections the MySQL/MariaDB data database's pool opens "
        "(a running query holds one; a cancelled one borrows a second for KILL QUERY).",
    )
    data_source_max_concurrent: int = Field(
        default=0,
        ge=0,
        description="Statements the data database runs at once; past it each user waits "
        "for a fair turn (round robin between users), shown as progress. 0: the pool's "
        "size for PostgreSQL and MySQL, 8 for SQLite and DuckDB.",
    )
    data_source_max_wait: float = Field(
        default=30.0,
        gt=0,
        description="Seconds a statement may wait for its turn on a busy data source "
        "before 503 DATA_SOURCE_BUSY names the source.",
    )
    duckdb_memory_limit: str = Field(
        default="1GB",
        description="DuckDB's memory_limit for a duckdb:/// data source or a dataset, "
        "e.g. 512MB or 4GB; beyond it DuckDB spills or fails the query.",
    )
    duckdb_threads: int = Field(
        default=2, ge=1, description="Threads one DuckDB data source may use for a query."
    )
    datasets_enabled: bool = Field(
        default=False,
        description="Let users upload files (POST /api/v0/datasets) and ask about them "
        "with dataset_id.",
    )
    datasets_dir: Path | None = Field(
        default=None,
        description="Where uploaded datasets are kept, a folder per user; default: "
        "DATA_DIR/datasets.",
    )
    datasets_max_upload_bytes: int = Field(
        default=20_000_000, ge=1, description="Largest dataset upload accepted (else 413)."
    )
    datasets_max_per_user: int = Field(
        default=20, ge=1, description="Most datasets one user may keep at once."
    )

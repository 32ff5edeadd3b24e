"""The engines a data URL may name: one entry per engine, keyed by the URL's scheme.

A new engine is one package under databases/ with an `open_url(url, *, file_options,
pool_options)` function and one `Engine` line here (docs/databases.md has the recipe).
Engines are imported only when a URL asks for one, so a missing driver stops only its own.
A family of a native engine (Doris on MySQL's wire, openGauss on PostgreSQL's) is a line
naming that engine's package with the family's own kind and sqlglot dialect. Any other
scheme that an installed SQLAlchemy dialect reads goes to the generic engine
(databases/generic); a known one whose driver is not installed is a one-line error
naming the extra to install (EXTRAS).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from react_agent.errors import ConfigurationError


@dataclass(frozen=True)
class Engine:
    """One engine: its kind (reported by /health), URL schemes, package and SQL dialect."""

    kind: str
    schemes: tuple[str, ...]
    package: str
    """The package under react_agent.databases whose `open_url` opens it."""
    dialect: str
    """The sqlglot dialect the guard, the scope rewrite and the lint read its SQL in
    (the generic engine's is chosen per URL: databases/generic/dialects)."""


ENGINES: tuple[Engine, ...] = (
    Engine("sqlite", ("sqlite",), "sqlite", "sqlite"),
    Engine("postgres", ("postgresql", "postgres"), "postgres", "postgres"),
    Engine("mysql", ("mysql", "mariadb"), "mysql", "mysql"),
    Engine("duckdb", ("duckdb",), "duckdb", "duckdb"),
    Engine("clickhouse", ("clickhouse", "chdb"), "clickhouse", "clickhouse"),
    Engine("doris", ("doris",), "mysql", "doris"),
    Engine("starrocks", ("starrocks",), "mysql", "starrocks"),
    Engine("tidb", ("tidb",), "mysql", "mysql"),
    Engine("oceanbase", ("oceanbase",), "mysql", "mysql"),
    Engine("kingbase", ("kingbase", "kingbasees"), "postgres", "postgres"),
    Engine("opengauss", ("opengauss",), "postgres", "postgres"),
    Engine("gaussdb", ("gaussdb",), "postgres", "postgres"),
    Engine("highgo", ("highgo",), "postgres", "postgres"),
)

GENERIC = Engine("generic", (), "generic", "")
"""Any URL an installed SQLAlchemy dialect reads; also DATA_ENGINE=generic for the above."""

EXTRAS: dict[str, str] = {
    "oracle": "oracle",
    "mssql": "mssql",
    "trino": "trino",
    "clickhouse": "clickhouse",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "dm": "dameng",
    "redshift": "redshift",
    "databricks": "databricks",
    "hana": "hana",
    "db2": "db2",
}
"""Scheme → the extra of pyproject.toml that installs its SQLAlchemy dialect and driver."""


def url_scheme(url: str) -> str:
    """Return a URL's scheme without its driver (`mysql+asyncmy` → `mysql`), lower-cased."""
    # Not urlsplit: a URL it cannot parse (an unclosed `[`) still has a scheme to report.
    return url.split(":", 1)[0].split("+")[0].strip().lower() if ":" in url else ""


def engine_for(url: str, forced: str | None = None) -> Engine:
    """Return the engine that opens `url`; `forced="generic"` (DATA_ENGINE) picks the generic one.

    Raises:
        ConfigurationError: The scheme is a known database whose driver is not installed
            (the line names the extra).
        ValueError: The scheme is no database this service or SQLAlchemy knows.

    """
    scheme = url_scheme(url)
    native = next((engine for engine in ENGINES if scheme in engine.schemes), None)
    if native is not None and forced != "generic":
        return native
    from react_agent.databases.generic.dialects import has_sqlalchemy_dialect

    if has_sqlalchemy_dialect(url):
        return GENERIC
    if scheme in EXTRAS or (native is not None and forced == "generic"):
        extra = EXTRAS.get(scheme, "generic")
        raise ConfigurationError(
            "DATA_DATABASE_URL",
            f'DATA_DATABASE_URL: the {scheme}:// driver is not installed; pip install ".[{extra}]"',
        )
    known = ", ".join(f"{s}://" for engine in ENGINES for s in engine.schemes)
    # The scheme only: the URL may hold a password.
    raise ValueError(
        f"unsupported database URL scheme {scheme!r}: use one of {known} "
        "or a SQLAlchemy URL whose dialect is installed"
    )


def opener(engine: Engine) -> Callable[..., Awaitable[Any]]:
    """Return the engine package's `open_url`, imported now."""
    module = importlib.import_module(f"react_agent.databases.{engine.package}")
    return module.open_url

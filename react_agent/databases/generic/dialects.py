"""Which SQLAlchemy dialect and driver a URL opens, and the sqlglot dialect its SQL is read in."""

from __future__ import annotations

import logging
import re
from typing import Any

logger = logging.getLogger(__name__)

SQLGLOT_DIALECTS: dict[str, str] = {
    "postgresql": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "sqlite": "sqlite",
    "duckdb": "duckdb",
    "oracle": "oracle",
    "dm": "oracle",  # Dameng speaks Oracle's SQL (its sqlglot dialect is Oracle's)
    "mssql": "tsql",
    "trino": "trino",
    "presto": "presto",
    "clickhouse": "clickhouse",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "redshift": "redshift",
    "databricks": "databricks",
    "hive": "hive",
    "spark": "spark",
    "doris": "doris",
    "starrocks": "starrocks",
    "teradata": "teradata",
    "exasol": "exasol",
    "awsathena": "athena",
    "dremio": "dremio",
    "drill": "drill",
    "druid": "druid",
    "risingwave": "risingwave",
    "materialize": "materialize",
    "singlestoredb": "singlestore",
}
"""SQLAlchemy dialect name → the sqlglot dialect the guard, rewrite and lint read its SQL in."""
FALLBACK_SQLGLOT_DIALECT = "postgres"
"""A dialect not in the table is read as PostgreSQL's SQL, the closest to the standard of
those the guard is tested in; what sqlglot cannot read there is refused (fail closed)."""

FAMILY_BASES: dict[str, str] = {
    "postgres": "postgresql",
    "kingbase": "postgresql",
    "kingbasees": "postgresql",
    "opengauss": "postgresql",
    "gaussdb": "postgresql",
    "highgo": "postgresql",
    "tidb": "mysql",
    "oceanbase": "mysql",
}
"""Schemes of this service's engine families → the SQLAlchemy dialect that speaks their wire."""

DRIVERS: dict[str, tuple[str, ...]] = {
    "postgresql": ("psycopg2", "psycopg", "pg8000"),
    "mysql": ("mysqldb", "pymysql", "mysqlconnector"),
    "mariadb": ("mysqldb", "pymysql", "mariadbconnector"),
    "mssql": ("pyodbc", "pymssql"),
    "oracle": ("cx_oracle", "oracledb"),
}
"""Drivers tried in turn for a URL that names none (the first is SQLAlchemy's default)."""

FALLBACK_VERSIONS: dict[str, tuple[int, ...]] = {"postgresql": (9, 2)}
"""The version assumed when a server's version string cannot be read (openGauss's:
`(openGauss 5.0.0 build …)`; SQLAlchemy's PostgreSQL dialect asserts on it, SQLBot #673)."""

_SCHEME = re.compile(r"^(?P<name>[A-Za-z][\w.-]*?)(?:\+(?P<driver>[\w.-]+))?(?=://)")


def sqlglot_dialect(sqlalchemy_name: str) -> str:
    """Return the sqlglot dialect of a SQLAlchemy dialect name (FALLBACK_SQLGLOT_DIALECT else)."""
    return SQLGLOT_DIALECTS.get(sqlalchemy_name.lower(), FALLBACK_SQLGLOT_DIALECT)


def resolve_url(url: str) -> tuple[str, Any] | None:
    """Return (the URL with a driver SQLAlchemy can import, its dialect class), or None.

    A family's scheme (`opengauss://`) becomes its wire's dialect (`postgresql://`); a URL
    without a driver gets the first installed one of DRIVERS.
    """
    from sqlalchemy.engine.url import make_url

    match = _SCHEME.match(url.strip())
    if match is None:
        return None
    name = FAMILY_BASES.get(match["name"].lower(), match["name"].lower())
    rest = url.strip()[match.end() :]
    drivers = (match["driver"],) if match["driver"] else (None, *DRIVERS.get(name, ()))
    for driver in drivers:
        candidate = f"{name}+{driver}{rest}" if driver else f"{name}{rest}"
        try:
            dialect = make_url(candidate).get_dialect()
            dialect.import_dbapi()
        except Exception:  # not installed: NoSuchModuleError, ImportError and the like
            continue
        return candidate, dialect
    return None


def has_sqlalchemy_dialect(url: str) -> bool:
    """Whether an installed SQLAlchemy dialect and driver can open `url`."""
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        return False
    return resolve_url(url) is not None


def tolerate_version_strings(dialect: Any) -> None:
    """Keep a server's unreadable version string from stopping the connection.

    SQLAlchemy's dialects read the server's version with a pattern when they first
    connect and raise when it does not match (openGauss, GaussDB and others write their
    own name there). Here such a string is logged and FALLBACK_VERSIONS assumed instead.
    """
    read = getattr(dialect, "_get_server_version_info", None)
    if read is None:
        return

    def tolerant(connection: Any) -> tuple[int, ...]:
        try:
            return read(connection)
        except (AssertionError, ValueError, TypeError, IndexError) as exc:
            assumed = FALLBACK_VERSIONS.get(dialect.name, ())
            logger.info("the server's version string is not %s's: %s", dialect.name, exc)
            return assumed

    dialect._get_server_version_info = tolerant

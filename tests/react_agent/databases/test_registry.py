"""Which engine a URL opens: native engines, their families, the generic one, missing drivers."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from react_agent.databases.generic.dialects import (
    FALLBACK_SQLGLOT_DIALECT,
    resolve_url,
    sqlglot_dialect,
    tolerate_version_strings,
)
from react_agent.databases.generic.statements import driver_statement
from react_agent.databases.mysql.families import server_family, time_limit_sql
from react_agent.databases.postgres.pool import postgres_conninfo
from react_agent.databases.registry import GENERIC, engine_for
from react_agent.databases.urls import database_kind
from react_agent.errors import ConfigurationError

OPENGAUSS_VERSION = (
    "(openGauss 5.0.0 build a07d57c3) compiled at 2023-03-29 03:07:56 commit 0 last mr  "
    "on x86_64-unknown-linux-gnu, compiled by g++ (GCC) 7.3.0, 64-bit"
)


@pytest.mark.parametrize(
    ("url", "kind", "package", "dialect"),
    [
        ("doris://u:p@fe:9030/sales", "doris", "mysql", "doris"),
        ("starrocks://u@fe:9030/sales", "starrocks", "mysql", "starrocks"),
        ("tidb://u@tidb:4000/sales", "tidb", "mysql", "mysql"),
        ("oceanbase://u@ob:2881/sales", "oceanbase", "mysql", "mysql"),
        ("kingbase://u@kb:54321/sales", "kingbase", "postgres", "postgres"),
        ("opengauss://u@og:5432/sales", "opengauss", "postgres", "postgres"),
        ("gaussdb://u@gs:8000/sales", "gaussdb", "postgres", "postgres"),
        ("highgo://u@hg:5866/sales", "highgo", "postgres", "postgres"),
        ("mariadb://u@db/sales", "mysql", "mysql", "mysql"),
    ],
)
def test_a_family_runs_on_its_wires_native_engine_in_its_own_dialect(url, kind, package, dialect):
    engine = engine_for(url)
    assert (engine.kind, engine.package, engine.dialect) == (kind, package, dialect)


def test_a_postgres_family_url_reaches_psycopg_as_postgresql():
    assert postgres_conninfo("opengauss://u:p@og:5432/sales") == "postgresql://u:p@og:5432/sales"


def test_data_engine_generic_takes_any_url_with_an_installed_dialect():
    assert engine_for("sqlite:///x.db", "generic") is GENERIC
    assert engine_for("postgresql://u@h/db", "generic") is GENERIC
    assert database_kind("mysql://u@h/db", "generic") == "generic"
    assert database_kind("mysql://u@h/db") == "mysql"


def test_a_url_without_a_driver_gets_the_first_one_installed():
    resolved = resolve_url("postgresql://u@h/db")
    assert resolved is not None and resolved[0].startswith("postgresql+psycopg")
    resolved = resolve_url("opengauss://u@h/db")  # the family speaks PostgreSQL's wire
    assert resolved is not None and resolved[1].name == "postgresql"
    resolved = resolve_url("mariadb://u@h/db")
    assert resolved is not None and resolved[0].startswith("mariadb+pymysql://")


@pytest.mark.parametrize(
    ("url", "extra"),
    [
        ("oracle+oracledb://scott:tiger@db:1521/orcl", "oracle"),
        ("mssql+pymssql://sa:pw@db/sales", "mssql"),
        ("trino://u@trino:8080/hive", "trino"),
        ("snowflake://u:pw@account/db", "snowflake"),
        ("dm+dmPython://u:pw@dm:5236", "dameng"),
    ],
)
def test_a_database_whose_driver_is_missing_names_the_extra_in_one_line(url, extra):
    with pytest.raises(ConfigurationError) as missing:
        engine_for(url)
    detail = missing.value.detail
    assert detail.startswith("DATA_DATABASE_URL: ") and "\n" not in detail
    assert f'pip install ".[{extra}]"' in detail
    assert "tiger" not in detail and "pw" not in detail.split("://", 1)[-1]


def test_an_unknown_scheme_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unsupported database URL scheme 'nosuchdb'.*doris://"):
        engine_for("nosuchdb://u:secret@h/db")


def test_each_sqlalchemy_dialect_maps_to_a_sqlglot_dialect_with_a_stated_fallback():
    assert [sqlglot_dialect(n) for n in ("postgresql", "mssql", "oracle", "mariadb")] == [
        "postgres",
        "tsql",
        "oracle",
        "mysql",
    ]
    assert sqlglot_dialect("somethingnew") == FALLBACK_SQLGLOT_DIALECT == "postgres"


@pytest.mark.parametrize(
    ("version", "declared", "family"),
    [
        ("10.11.6-MariaDB-0+deb12u1", "doris", "mariadb"),  # the stand-in names itself
        ("5.7.25-TiDB-v7.5.0", "mysql", "tidb"),
        ("5.7.25-OceanBase_CE-v4.2.1.2", "oceanbase", "oceanbase"),
        ("5.7.99", "doris", "doris"),  # Doris sends a bare version
        ("5.1.0", "starrocks", "starrocks"),
        ("8.0.36", "mysql", "mysql"),
        ("weird build (no numbers at all)", "tidb", "mysql"),
    ],
)
def test_the_servers_own_name_picks_its_session_rules(version, declared, family):
    assert server_family(version, declared) == family


def test_each_family_gets_its_own_time_limit_variable():
    assert time_limit_sql("mariadb", 1.5) == "max_statement_time = 1.500"
    assert time_limit_sql("mysql", 1.5) == "MAX_EXECUTION_TIME = 1500"
    assert time_limit_sql("tidb", 1.5) == "MAX_EXECUTION_TIME = 1500"
    assert time_limit_sql("oceanbase", 1.5) == "ob_query_timeout = 1500000"
    assert time_limit_sql("doris", 1.5) == "query_timeout = 2"
    assert time_limit_sql("starrocks", 0.2) == "query_timeout = 1"


@pytest.mark.parametrize(
    ("style", "text", "values"),
    [
        ("named", "a = :scope_r AND b LIKE '%x' AND c = :scope_r", {"scope_r": 1}),
        ("pyformat", "a = %(scope_r)s AND b LIKE '%%x' AND c = %(scope_r)s", {"scope_r": 1}),
        ("format", "a = %s AND b LIKE '%%x' AND c = %s", (1, 1)),
        ("qmark", "a = ? AND b LIKE '%x' AND c = ?", (1, 1)),
        ("numeric", "a = :1 AND b LIKE '%x' AND c = :2", (1, 1)),
        ("numeric_dollar", "a = $1 AND b LIKE '%x' AND c = $2", (1, 1)),
    ],
)
def test_scope_placeholders_reach_each_driver_in_its_style(style, text, values):
    for written in (
        "a = :scope_r AND b LIKE '%x' AND c = %(scope_r)s",
        "a = $scope_r AND b LIKE '%x' AND c = :scope_r",
    ):
        assert driver_statement(written, {"scope_r": 1}, style) == (text, values)
    assert driver_statement("b LIKE '%x'", None, style) == ("b LIKE '%x'", None)


class _VersionAnswer:
    """What SQLAlchemy's PostgreSQL dialect reads the version from: one scalar."""

    def __init__(self, text: str) -> None:
        self.text = text

    def exec_driver_sql(self, _sql: str) -> _VersionAnswer:
        return self

    def scalar(self) -> str:
        return self.text


def test_an_opengauss_version_string_does_not_stop_the_generic_engine():
    dialect = sa.create_engine("postgresql+psycopg://u@h/db").dialect
    with pytest.raises(AssertionError, match="Could not determine version"):
        dialect._get_server_version_info(_VersionAnswer(OPENGAUSS_VERSION))
    tolerate_version_strings(dialect)
    assert dialect._get_server_version_info(_VersionAnswer(OPENGAUSS_VERSION)) == (9, 2)
    assert dialect._get_server_version_info(_VersionAnswer("PostgreSQL 16.4 on x86_64")) == (
        16,
        4,
    )

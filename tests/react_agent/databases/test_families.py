"""The families by name answer on their stand-ins: MariaDB for MySQL's wire, PostgreSQL for its.

Doris, StarRocks, TiDB and OceanBase do not run here, nor do Kingbase, openGauss, GaussDB
and HighGo; the wire is the same, so each scheme is opened against the stand-in and must
answer, stay read-only and read its SQL in its own dialect (docs/databases.md says what
was tested against what).
"""

from __future__ import annotations

import pytest

from react_agent.databases.base import QueryFailed
from react_agent.databases.open import open_database
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.sample_data.load_postgres import load_into_postgres

MYSQL_FAMILY = {"doris": "doris", "starrocks": "starrocks", "tidb": "mysql", "oceanbase": "mysql"}
POSTGRES_FAMILY = ("kingbase", "opengauss", "gaussdb", "highgo")


def with_scheme(url: str, scheme: str) -> str:
    return scheme + url[url.index("://") :]


async def answers_read_only(url: str, dialect: str) -> None:
    database = await open_database(url, max_size=2, connect_timeout=5)
    try:
        assert database.dialect == dialect
        sql = check_query("SELECT count(*) AS n FROM regions", dialect, None)
        assert (await database.run_query(sql, row_limit=5, timeout=10)).rows == [{"n": 7}]
        with pytest.raises(QueryFailed):
            await database.run_query("DELETE FROM regions", row_limit=5, timeout=10)
        assert "regions" in await database.list_tables()
    finally:
        await database.aclose()


async def test_the_mysql_family_answers_on_mariadb_in_its_own_dialect(mysql_sample_url):
    for scheme, dialect in MYSQL_FAMILY.items():
        await answers_read_only(with_scheme(mysql_sample_url, scheme), dialect)


async def test_the_postgres_family_answers_on_postgresql(postgres_database):
    load_into_postgres(postgres_database)
    for scheme in POSTGRES_FAMILY:
        await answers_read_only(with_scheme(postgres_database, scheme), "postgres")


@pytest.mark.parametrize("dialect", ["doris", "starrocks"])
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT SLEEP(10)",
        "SELECT /*! SLEEP(10) */ 1",
        "SELECT * FROM mysql.user",
        "SELECT @@version",
        "SELECT @x := 1",
        "SELECT LOAD_FILE('/etc/passwd')",
    ],
)
def test_doris_and_starrocks_sql_keeps_the_mysql_guard_rules(dialect, sql):
    with pytest.raises(QueryRejected):
        check_query(sql, dialect, None)

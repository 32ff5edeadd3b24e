"""Which sources a statement reads, its text for one source, and how DuckDB attaches each."""

from __future__ import annotations

import asyncio
from urllib.parse import quote

import duckdb
import pytest

from react_agent.databases.base import QueryFailed
from react_agent.databases.federation.attach import attach_statements, scanner_file
from react_agent.databases.federation.specs import parse_sources
from react_agent.databases.federation.statements import (
    check_federated,
    native_statement,
    sources_named,
)

NAMES = {"sales", "fin"}
PASSWORD = "p w'x\\y"
"""A password with a space, a quote and a backslash (p w'x\\y)."""


def test_the_sources_a_statement_reads_are_its_qualifiers_not_its_aliases_or_ctes():
    sql = (
        "WITH fin AS (SELECT 1 AS x) SELECT * FROM sales.orders AS fin "
        "JOIN fin.stores s ON s.store_id = fin.store_id"
    )
    assert sources_named(sql, NAMES) == ["sales", "fin"]
    assert sources_named("SELECT 1", NAMES) == []
    assert sources_named("SELECT * FROM sales.orders o JOIN sales.stores s USING (x)", NAMES) == [
        "sales"
    ]


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("postgres", "SELECT * FROM (SELECT * FROM orders WHERE a = %(p)s OFFSET 0) AS o"),
        (
            "mysql",
            "SELECT * FROM (SELECT * FROM orders WHERE a = %(p)s LIMIT 18446744073709551615) AS o",
        ),
        ("sqlite", "SELECT * FROM (SELECT * FROM orders WHERE a = :p LIMIT -1 OFFSET 0) AS o"),
    ],
)
def test_a_one_source_statement_is_unqualified_and_keeps_the_scopes_fence(dialect, expected):
    scoped = "SELECT * FROM (SELECT * FROM sales.orders WHERE a = $p OFFSET 0) AS o"
    got = native_statement(scoped, "sales", dialect)
    # Placeholders are written the way each engine's driver binds them.
    assert got.replace(":p", "%(p)s") == expected.replace(":p", "%(p)s")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM sales.orders JOIN orders ON true",  # a bare table
        "SELECT * FROM sales.orders JOIN other.orders ON true",  # not a source
        "SELECT * FROM sales.public.orders",  # three parts
        "SELECT * FROM sales.orders, generate_series(1, 3)",  # a table function
        "SELECT postgres_query('sales', 'DELETE FROM x') FROM fin.stores",
        "SELECT * FROM sales.orders WHERE x IN (SELECT * FROM read_parquet('/etc/x'))",
    ],
)
def test_the_federation_refuses_anything_but_the_sources_tables(sql):
    with pytest.raises(QueryFailed):
        check_federated(sql, NAMES)


def test_a_cte_of_the_statement_is_not_taken_for_a_table():
    check_federated("WITH t AS (SELECT * FROM sales.orders) SELECT * FROM t", NAMES)


def test_a_mysql_password_with_spaces_and_quotes_attaches(mysql_sample_url: str):
    """A MariaDB account whose password has a space and a quote reads through the scanner."""
    from tests.support.mysql import run_statements

    database = mysql_sample_url.rsplit("/", 1)[1]
    user = f"u{database[-8:]}"
    server = mysql_sample_url.rsplit("/", 1)[0]
    asyncio.run(
        run_statements(
            mysql_sample_url,
            f"CREATE USER '{user}'@'%' IDENTIFIED BY 'p w''x\\\\y'",
            f"GRANT SELECT ON `{database}`.* TO '{user}'@'%'",
        )
    )
    try:
        host = server.split("@", 1)[1]
        url = f"mysql://{user}:{quote(PASSWORD, safe='')}@{host}/{database}"
        connection = duckdb.connect()
        for statement in attach_statements("fin", url):
            connection.execute(statement)
        (count,) = connection.execute("SELECT count(*) FROM fin.stores").fetchone()
    finally:
        asyncio.run(run_statements(mysql_sample_url, f"DROP USER IF EXISTS '{user}'@'%'"))
    assert count == 32


def test_the_scanners_load_from_their_packages_files_without_a_download():
    connection = duckdb.connect(
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    )
    for name in ("postgres", "mysql", "sqlite"):
        connection.execute(f"LOAD '{scanner_file(name)}'")
    loaded = {
        row[0]
        for row in connection.execute(
            "SELECT extension_name FROM duckdb_extensions() WHERE loaded"
        ).fetchall()
    }
    assert {"postgres_scanner", "mysql_scanner", "sqlite_scanner"} <= loaded


def test_a_yaml_file_of_sources_gives_names_urls_and_descriptions(tmp_path):
    path = tmp_path / "sources.yml"
    path.write_text(
        "sources:\n  sales: postgresql://pg/shop\n"
        "  fin:\n    url: mysql://db/finance\n    description: 财务\n"
    )
    specs = parse_sources(str(path))
    assert [(s.name, s.url, s.description) for s in specs] == [
        ("sales", "postgresql://pg/shop", ""),
        ("fin", "mysql://db/finance", "财务"),
    ]

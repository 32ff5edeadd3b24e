"""TPC-H for the engine suites: DuckDB's tpch extension makes the data and the 22 queries.

The extension comes from the `duckdb-extension-tpch` package and is loaded from the
package's file (nothing is downloaded). The tables are copied into SQLite, PostgreSQL and
MariaDB through their own drivers; each query is transpiled from DuckDB's SQL by sqlglot.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import psycopg
import sqlglot

from tests.support.mysql import run_statements

SCALE = 0.01
"""lineitem has some 60,000 rows: every query has rows to return, and loading stays quick."""
INSERT_BATCH = 5000
KEYS = {
    "region": ("PRIMARY KEY (r_regionkey)",),
    "nation": ("PRIMARY KEY (n_nationkey)", "INDEX (n_regionkey)"),
    "part": ("PRIMARY KEY (p_partkey)",),
    "supplier": ("PRIMARY KEY (s_suppkey)", "INDEX (s_nationkey)"),
    "partsupp": ("PRIMARY KEY (ps_partkey, ps_suppkey)", "INDEX (ps_suppkey)"),
    "customer": ("PRIMARY KEY (c_custkey)", "INDEX (c_nationkey)"),
    "orders": ("PRIMARY KEY (o_orderkey)", "INDEX (o_custkey)"),
    "lineitem": (
        "PRIMARY KEY (l_orderkey, l_linenumber)",
        "INDEX (l_partkey, l_suppkey)",
        "INDEX (l_suppkey)",
    ),
}
"""The keys and join indexes of TPC-H: without them MariaDB's nested loops take hours."""


@dataclass(frozen=True)
class TPCH:
    """The generated data (a DuckDB file) and the 22 queries in DuckDB's SQL."""

    path: Path
    queries: tuple[tuple[int, str], ...]
    tables: tuple[str, ...]


def extension_file() -> Path | None:
    """Return the tpch extension's file of the installed package, or None."""
    spec = importlib.util.find_spec("duckdb_extension_tpch")
    if spec is None or spec.origin is None:
        return None
    return next(Path(spec.origin).parent.rglob("tpch.duckdb_extension"), None)


def generate(folder: Path) -> TPCH:
    """Generate TPC-H at SCALE into a DuckDB file in `folder`."""
    extension = extension_file()
    assert extension is not None
    path = folder / "tpch.duckdb"
    path.unlink(missing_ok=True)
    with duckdb.connect(str(path)) as connection:
        connection.execute(f"LOAD '{extension}'")
        connection.execute(f"CALL dbgen(sf={SCALE})")
        queries = connection.execute("SELECT query_nr, query FROM tpch_queries()").fetchall()
        tables = connection.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1"
        ).fetchall()
    return TPCH(path, tuple(queries), tuple(name for (name,) in tables))


# Q13 names its derived table's columns in a list (`AS c_orders (c_custkey, c_count)`),
# which SQLite and MariaDB do not read: the same query with the alias inline.
_COLUMN_LIST = re.compile(
    r"count\(o_orderkey\)(\s+FROM.*?)AS c_orders \(c_custkey,\s*c_count\)", re.S
)
# sqlglot writes EXTRACT(YEAR FROM …) for SQLite, which has no EXTRACT (Q7, Q8, Q9).
_EXTRACT_YEAR = re.compile(r"EXTRACT\(YEAR FROM ([\w.]+)\)")


def in_dialect(query: str, dialect: str) -> str:
    """Return a TPC-H query in `dialect`, without its final semicolon.

    Two rewrites keep the meaning where a dialect lacks a form (see above); sqlglot
    transpiles the rest from DuckDB's SQL.
    """
    portable = _COLUMN_LIST.sub(r"count(o_orderkey) AS c_count\1AS c_orders", query)
    text = sqlglot.transpile(portable.strip().rstrip(";"), read="duckdb", write=dialect)[0]
    if dialect == "sqlite":
        text = _EXTRACT_YEAR.sub(r"CAST(STRFTIME('%Y', \1) AS INTEGER)", text)
    return text


def _table_rows(tpch: TPCH) -> dict[str, tuple[list[tuple[str, str]], list[tuple[Any, ...]]]]:
    with duckdb.connect(str(tpch.path), read_only=True) as connection:
        found = {}
        for table in tpch.tables:
            columns = connection.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
                "ORDER BY column_index",
                [table],
            ).fetchall()
            found[table] = (columns, connection.execute(f"SELECT * FROM {table}").fetchall())
        return found


def _column_type(duckdb_type: str, dialect: str) -> str:
    if duckdb_type.startswith("DECIMAL") or duckdb_type in ("DATE",):
        return duckdb_type if dialect != "sqlite" else ("REAL" if "DEC" in duckdb_type else "TEXT")
    if duckdb_type in ("INTEGER", "BIGINT"):
        return duckdb_type
    return "VARCHAR(200)" if dialect == "mysql" else "TEXT"


def _creates(tpch: TPCH, dialect: str) -> list[tuple[str, str, list[tuple[Any, ...]]]]:
    made = []
    for table, (columns, rows) in _table_rows(tpch).items():
        parts = [f"{name} {_column_type(kind, dialect)}" for name, kind in columns]
        keys = KEYS.get(table, ())
        parts += [key for key in keys if dialect == "mysql" or key.startswith("PRIMARY")]
        made.append((table, f"CREATE TABLE {table} ({', '.join(parts)})", rows))
    return made


def load_sqlite(tpch: TPCH, path: Path) -> str:
    """Copy the tables into a SQLite file; return its URL (dates as ISO text)."""
    with sqlite3.connect(path) as connection:
        for table, create, rows in _creates(tpch, "sqlite"):
            connection.execute(create)
            for number, key in enumerate(KEYS.get(table, ())):
                if key.startswith("INDEX"):
                    columns = key.removeprefix("INDEX ")
                    connection.execute(f"CREATE INDEX {table}_{number} ON {table} {columns}")
            marks = ", ".join("?" * len(rows[0]))
            connection.executemany(
                f"INSERT INTO {table} VALUES ({marks})",
                ([_plain(value) for value in row] for row in rows),
            )
    return f"sqlite:///{path}"


def load_postgres(tpch: TPCH, url: str) -> str:
    """Copy the tables into the (empty) PostgreSQL database at `url`; return it."""
    with psycopg.connect(url, autocommit=True) as connection:
        for table, create, rows in _creates(tpch, "postgres"):
            connection.execute(create)
            with connection.cursor().copy(f"COPY {table} FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            for number, key in enumerate(KEYS.get(table, ())):
                if key.startswith("INDEX"):
                    columns = key.removeprefix("INDEX ")
                    connection.execute(f"CREATE INDEX {table}_{number} ON {table} {columns}")
            connection.execute(f"ANALYZE {table}")
    return url


def load_mysql(tpch: TPCH, url: str) -> str:
    """Copy the tables into the (empty) MariaDB/MySQL database at `url`; return it."""
    for table, create, rows in _creates(tpch, "mysql"):
        statements = [create]
        for start in range(0, len(rows), INSERT_BATCH):
            values = ", ".join(_mysql_row(row) for row in rows[start : start + INSERT_BATCH])
            statements.append(f"INSERT INTO {table} VALUES {values}")
        asyncio.run(run_statements(url, *statements))
    return url


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, int | float | str):
        return value
    return float(value) if hasattr(value, "as_integer_ratio") else str(value)


def _mysql_row(row: Sequence[Any]) -> str:
    shown = []
    for value in row:
        if isinstance(value, int | float) or hasattr(value, "as_integer_ratio"):
            shown.append(str(value))
        else:
            shown.append("'" + str(value).replace("\\", "\\\\").replace("'", "''") + "'")
    return "(" + ", ".join(shown) + ")"

"""Writing the generated schema to SQLite (with a semantic file for its comments) or PostgreSQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import yaml

from bench.schema_scale.schema import ROWS_PER_VALUE_TABLE, Table

_SQLITE_TYPES = {"integer": "INTEGER", "text": "TEXT", "timestamp": "TEXT", "date": "TEXT"}


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _definition(table: Table, dialect: str) -> str:
    lines = []
    for column in table.columns:
        type_ = column.type
        if dialect == "sqlite":
            type_ = _SQLITE_TYPES.get(type_, "REAL" if type_.startswith("numeric") else "INTEGER")
        line = f"{column.name} {type_}" + (" PRIMARY KEY" if column.name == "id" else "")
        if column.references:
            line += f" REFERENCES {column.references} (id)"
        lines.append(line)
    return f"CREATE TABLE {table.name} ({', '.join(lines)})"


def _rows(table: Table) -> list[tuple[int, str]]:
    values = next((c.values for c in table.columns if c.values), ())
    return [(n + 1, values[n % len(values)]) for n in range(ROWS_PER_VALUE_TABLE)] if values else []


def _ordered(tables: list[Table]) -> list[Table]:
    """Parents (`*_detail`) first, so every REFERENCES names a table that exists."""
    return sorted(tables, key=lambda t: (not t.name.endswith("_detail"), t.domain, t.kind))


def write_sqlite(tables: list[Table], path: Path) -> None:
    """Create the tables in a new SQLite file and fill the 50 tables that have values."""
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as connection:
        for table in _ordered(tables):
            connection.execute(_definition(table, "sqlite"))
            column = next((c.name for c in table.columns if c.values), None)
            if column:
                connection.executemany(
                    f"INSERT INTO {table.name} (id, {column}) VALUES (?, ?)", _rows(table)
                )


def write_semantic_file(tables: list[Table], path: Path) -> None:
    """Write the comments as a semantic file: SQLite keeps none, so they come from here."""
    document = {
        "tables": {
            table.name: {
                "description": table.comment,
                "columns": {c.name: {"description": c.comment} for c in table.columns},
            }
            for table in tables
        }
    }
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), "utf-8")


def write_postgres(tables: list[Table], url: str) -> None:
    """Create the tables with COMMENT ON in the database at `url`, fill them, ANALYZE."""
    with psycopg.connect(url, autocommit=False) as connection:
        for table in _ordered(tables):
            connection.execute(_definition(table, "postgres"))
            connection.execute(f"COMMENT ON TABLE {table.name} IS {_literal(table.comment)}")
            for column in table.columns:
                connection.execute(
                    f"COMMENT ON COLUMN {table.name}.{column.name} IS {_literal(column.comment)}"
                )
            column = next((c.name for c in table.columns if c.values), None)
            if column:
                with connection.cursor() as cursor:
                    cursor.executemany(
                        f"INSERT INTO {table.name} (id, {column}) VALUES (%s, %s)", _rows(table)
                    )
        connection.commit()
        connection.autocommit = True
        connection.execute("ANALYZE")

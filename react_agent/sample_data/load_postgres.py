"""Load the sample sales data into PostgreSQL: `python -m react_agent.sample_data.load_postgres`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import psycopg
from psycopg import sql

from react_agent.sample_data.dataset import (
    TABLES,
    comment_statements,
    create_index_statements,
    create_table_statements,
    generate_dataset,
)


class TablesExistError(RuntimeError):
    """Some sample tables already exist and the caller did not ask to replace them."""

    def __init__(self, schema: str, tables: Sequence[str]) -> None:
        super().__init__(
            f"schema {schema!r} already has {', '.join(tables)}; pass replace=True "
            "(--replace on the command line) to drop and reload them"
        )
        self.schema = schema
        self.tables = tuple(tables)


def _schema_exists(cursor: psycopg.Cursor, schema: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,))
    return cursor.fetchone() is not None


def _existing_relations(cursor: psycopg.Cursor, schema: str) -> list[str]:
    # Any relation kind counts: a view called "orders" would block CREATE TABLE just the same.
    cursor.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = ANY(%s) ORDER BY c.relname",
        (schema, [table.name for table in TABLES]),
    )
    return [name for (name,) in cursor.fetchall()]


def load_into_postgres(
    conninfo: str, *, schema: str = "public", replace: bool = False
) -> dict[str, int]:
    """Create the sample tables in `schema` and load the sample dataset, in one transaction.

    Either everything is loaded or, on any error, nothing changes.

    Args:
        conninfo: A libpq connection string or postgresql:// URL.
        schema: Schema to create the tables in; created if it does not exist.
        replace: Drop existing sample tables (with CASCADE, so dependent views go too)
            instead of refusing to touch them.

    Returns:
        The number of rows loaded per table name.

    Raises:
        TablesExistError: Some sample tables exist in `schema` and `replace` is false.

    """
    dataset = generate_dataset()
    schema_name = sql.Identifier(schema)
    # The connection context commits on success and rolls back if anything raises.
    with psycopg.connect(conninfo) as connection, connection.cursor() as cursor:
        # Checked first because CREATE SCHEMA IF NOT EXISTS still demands CREATE on the database.
        if not _schema_exists(cursor, schema):
            cursor.execute(sql.SQL("CREATE SCHEMA {}").format(schema_name))
        existing = _existing_relations(cursor, schema)
        if existing and not replace:
            raise TablesExistError(schema, existing)
        for table in reversed(TABLES):  # children first, so nothing else needs CASCADE
            cursor.execute(
                sql.SQL("DROP TABLE IF EXISTS {}.{} CASCADE").format(
                    schema_name, sql.Identifier(table.name)
                )
            )
        for statement in create_table_statements("postgres", schema):
            cursor.execute(statement)
        for table in TABLES:
            copy_statement = sql.SQL("COPY {}.{} ({}) FROM STDIN").format(
                schema_name,
                sql.Identifier(table.name),
                sql.SQL(", ").join(sql.Identifier(name) for name in table.column_names),
            )
            with cursor.copy(copy_statement) as copy:
                for row in dataset[table.name]:
                    copy.write_row(row)
        # Indexes after the bulk load: building them once is cheaper than maintaining them per row.
        for statement in create_index_statements("postgres", schema) + comment_statements(schema):
            cursor.execute(statement)
        for table in TABLES:  # fresh statistics, so the first queries get sensible plans
            cursor.execute(sql.SQL("ANALYZE {}.{}").format(schema_name, sql.Identifier(table.name)))
    return {table.name: len(dataset[table.name]) for table in TABLES}


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line, load the dataset and print the row counts."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("conninfo", help="e.g. postgresql://user@host:5432/db")
    parser.add_argument("--schema", default="public", help="target schema (default: public)")
    parser.add_argument(
        "--replace", action="store_true", help="drop and reload the sample tables if they exist"
    )
    arguments = parser.parse_args(argv)
    try:
        counts = load_into_postgres(
            arguments.conninfo, schema=arguments.schema, replace=arguments.replace
        )
    except TablesExistError as error:
        parser.exit(1, f"error: {error}\n")
    except psycopg.Error as error:
        parser.exit(1, f"error: {type(error).__name__}: {error}\n")
    for table, count in counts.items():
        print(f"{table:<12} {count:>6} rows")
    print(f"loaded into schema {arguments.schema!r}")


if __name__ == "__main__":
    main()

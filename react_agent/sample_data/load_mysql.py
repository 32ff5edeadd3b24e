"""Load the sample data into MySQL or MariaDB: `python -m react_agent.sample_data.load_mysql`."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

import asyncmy

from react_agent.databases.mysql.connection import connect_options
from react_agent.sample_data.dataset import TABLES, TABLES_BY_NAME, Table, generate_dataset

_MYSQL_TYPES = {
    "integer": "INT",
    "text": "VARCHAR(191)",  # 191 × 4 bytes of utf8mb4 fits an index key on every version
    "date": "DATE",
    "price": "DECIMAL(10,2)",
    "amount": "DECIMAL(12,2)",
    "rate": "DECIMAL(4,2)",
}


def _string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def create_table_statement(table: Table) -> str:
    """Return the MySQL CREATE TABLE of one sample table, its comments inline."""
    lines = []
    for column in table.columns:
        definition = f"`{column.name}` {_MYSQL_TYPES[column.kind]} "
        definition += "PRIMARY KEY" if column.primary_key else "NOT NULL"
        definition += f" COMMENT {_string(column.described('postgres'))}"
        if column.check is not None:
            definition += f" CHECK ({column.check})"
        lines.append(definition)
    for column in table.columns:
        if column.references is not None:
            parent = TABLES_BY_NAME[column.references]
            lines.append(
                f"FOREIGN KEY (`{column.name}`) REFERENCES `{parent.name}` (`{parent.primary_key}`)"
            )
    lines.extend(f"INDEX `{table.name}_{name}_idx` (`{name}`)" for name in table.indexes)
    return (
        f"CREATE TABLE `{table.name}` (\n    "
        + ",\n    ".join(lines)
        + f"\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT={_string(table.comment)}"
    )


async def load_into_mysql(url: str, *, replace: bool = False) -> dict[str, int]:
    """Create the sample tables in the URL's database and load the sample dataset.

    Args:
        url: `mysql://user:pass@host:port/db` or `mariadb://…`; the database must exist.
        replace: Drop existing sample tables instead of refusing to touch them.

    Returns:
        The number of rows loaded per table name.

    Raises:
        RuntimeError: Some sample tables exist and `replace` is false.

    """
    dataset = generate_dataset()
    options = connect_options(url, connect_timeout=10) | {"autocommit": False}
    connection = await asyncmy.connect(**options)
    try:
        async with connection.cursor() as cursor:
            names = [table.name for table in TABLES]
            await cursor.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = DATABASE() AND table_name IN %s",
                (tuple(names),),
            )
            existing = sorted(str(name) for (name,) in await cursor.fetchall())
            if existing and not replace:
                raise RuntimeError(
                    f"the database already has {', '.join(existing)}; pass --replace to reload"
                )
            await cursor.execute("SET SESSION sql_notes = 0")  # no "Unknown table" notes
            for table in reversed(TABLES):  # children first, for the foreign keys
                await cursor.execute(f"DROP TABLE IF EXISTS `{table.name}`")
            for table in TABLES:
                await cursor.execute(create_table_statement(table))
                columns = ", ".join(f"`{name}`" for name in table.column_names)
                marks = ", ".join(["%s"] * len(table.column_names))
                await cursor.executemany(
                    f"INSERT INTO `{table.name}` ({columns}) VALUES ({marks})",
                    dataset[table.name],
                )
            for table in TABLES:
                await cursor.execute(f"ANALYZE TABLE `{table.name}`")
                await cursor.fetchall()
        await connection.commit()
    finally:
        await connection.ensure_closed()
    return {table.name: len(dataset[table.name]) for table in TABLES}


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line, load the dataset and print the row counts."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url", help="e.g. mysql://root@127.0.0.1:3306/sales")
    parser.add_argument(
        "--replace", action="store_true", help="drop and reload the sample tables if they exist"
    )
    arguments = parser.parse_args(argv)
    try:
        counts = asyncio.run(load_into_mysql(arguments.url, replace=arguments.replace))
    except (RuntimeError, asyncmy.errors.Error) as error:
        parser.exit(1, f"error: {error}\n")
    for table, count in counts.items():
        print(f"{table:<12} {count:>6} rows")


if __name__ == "__main__":
    main()

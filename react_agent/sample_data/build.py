"""Write the sample SQLite database: `python -m react_agent.sample_data.build [--out PATH]`."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from pathlib import Path

from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.dataset import (
    TABLES,
    Row,
    create_index_statements,
    create_table_statements,
    generate_dataset,
)


def _sqlite_value(value: object) -> object:
    """Convert a dataset value to how SQLite stores it (ISO date text, REAL money)."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return value


def _write_database(path: Path, dataset: dict[str, list[Row]]) -> None:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves so DDL and rows share one transaction.
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA foreign_keys = ON")  # catch generator bugs at build time
        connection.execute("BEGIN")
        for statement in create_table_statements("sqlite"):
            connection.execute(statement)
        for table in TABLES:
            placeholders = ", ".join("?" for _ in table.columns)
            connection.executemany(
                f"INSERT INTO {table.name} ({', '.join(table.column_names)}) "
                f"VALUES ({placeholders})",
                ([_sqlite_value(value) for value in row] for row in dataset[table.name]),
            )
        for statement in create_index_statements("sqlite"):
            connection.execute(statement)
        connection.execute("COMMIT")
        # Rewrites the file compactly in a canonical page order, which keeps it small and
        # makes repeated builds byte-identical with the same SQLite version.
        connection.execute("VACUUM")
    finally:
        connection.close()


def build_sqlite(path: Path | str = SAMPLE_DB_PATH) -> Path:
    """Write the sample database to `path` from scratch, replacing any existing file.

    The file is written next to `path` under a temporary name and then renamed over
    it, so readers never see a half-written database.

    Args:
        path: Where the SQLite file goes; defaults to the embedded `SAMPLE_DB_PATH`.

    Returns:
        The path written.

    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    os.close(handle)
    temporary = Path(temporary_name)
    try:
        _write_database(temporary, generate_dataset())
        temporary.chmod(0o644)  # mkstemp's 0600 would hide the file from other local users
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        Path(f"{temporary}-journal").unlink(missing_ok=True)
        raise
    return target


def _connect_read_only(sqlite_path: Path | str) -> sqlite3.Connection:
    # mode=ro makes a missing file an error instead of silently creating an empty database.
    return sqlite3.connect(f"{Path(sqlite_path).resolve().as_uri()}?mode=ro", uri=True)


def _user_tables(connection: sqlite3.Connection) -> list[str]:
    rows = connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name"
    )
    return [name for (name,) in rows]


def content_digest(sqlite_path: Path | str) -> str:
    """Return a SHA-256 hex digest of every table's columns and rows in primary-key order.

    Two databases with the same tables, column types and rows get the same digest even
    when their files differ byte for byte.

    Args:
        sqlite_path: The SQLite file to read (opened read-only).

    """
    digest = hashlib.sha256()
    connection = _connect_read_only(sqlite_path)
    try:
        for table in _user_tables(connection):
            columns = connection.execute(f'PRAGMA table_info("{table}")').fetchall()
            # table_info rows: (cid, name, type, notnull, default, pk position or 0)
            key = [column[1] for column in sorted(columns, key=lambda c: c[5]) if column[5]]
            order_by = ", ".join(f'"{name}"' for name in key or [c[1] for c in columns])
            header = {"table": table, "columns": [[c[1], c[2]] for c in columns]}
            digest.update(_json_line(header))
            for row in connection.execute(f'SELECT * FROM "{table}" ORDER BY {order_by}'):
                digest.update(_json_line(list(row)))
    finally:
        connection.close()
    return digest.hexdigest()


def _json_line(value: object) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_blob_as_hex)
    return (text + "\n").encode()


def _blob_as_hex(value: object) -> str:
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"unexpected SQLite value {value!r}")


def table_row_counts(sqlite_path: Path | str) -> dict[str, int]:
    """Return the number of rows in each table of the SQLite file, by table name."""
    connection = _connect_read_only(sqlite_path)
    try:
        return {
            table: connection.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
            for table in _user_tables(connection)
        }
    finally:
        connection.close()


def main(argv: Sequence[str] | None = None) -> None:
    """Build the sample database and print its row counts, size and content digest."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--out",
        type=Path,
        default=SAMPLE_DB_PATH,
        help=f"where to write the SQLite file (default: {SAMPLE_DB_PATH})",
    )
    arguments = parser.parse_args(argv)
    path = build_sqlite(arguments.out)
    counts = table_row_counts(path)
    order = {table.name: position for position, table in enumerate(TABLES)}
    for table in sorted(counts, key=lambda name: order.get(name, len(order))):
        print(f"{table:<12} {counts[table]:>6} rows")
    print(f"wrote {path} ({path.stat().st_size:,} bytes), content digest {content_digest(path)}")


if __name__ == "__main__":
    main()

"""A 100,000-row CSV export's memory on each engine, native and generic.

`python -m bench.engines.export_memory [--rows N] [--postgres URL] [--mysql URL]` writes a
`sales` table of N rows (dates, Chinese text, decimals, NULLs) into a temporary SQLite
file and, given their URLs (an existing, throwaway database each), into PostgreSQL and
MariaDB/MySQL; then exports it as CSV once per engine and side, each in a fresh process,
and prints the RSS growth during the export (target: flat, under 20 MB, as
bench/backends/export_csv). Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncmy
import psycopg

from bench.backends.export_csv import REGIONS, make_table, rss_mb
from react_agent.databases.mysql.connection import connect_options
from react_agent.databases.open import open_database
from react_agent.results.exports import start_csv_export

TARGET_MB = 20.0
EXPORT_SQL = "SELECT id, day, region, amount, note FROM sales ORDER BY id"


def _rows(count: int) -> list[tuple[object, ...]]:
    return [
        (
            i,
            f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
            REGIONS[i % len(REGIONS)],
            round(i * 1.37 % 10_000, 2),
            None if i % 5 == 0 else f"第 {i} 笔订单，备注文字",
        )
        for i in range(1, count + 1)
    ]


def fill_postgres(url: str, rows: int) -> None:
    """Write the `sales` table into the PostgreSQL database at `url`."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS sales")
        connection.execute(
            "CREATE TABLE sales (id integer PRIMARY KEY, day date, region text, "
            "amount numeric(12,2), note text)"
        )
        with connection.cursor().copy("COPY sales FROM STDIN") as copy:
            for row in _rows(rows):
                copy.write_row(row)


def fill_mysql(url: str, rows: int) -> None:
    """Write the `sales` table into the MySQL/MariaDB database at `url`."""

    def shown(value: object) -> str:
        return (
            "NULL"
            if value is None
            else (str(value) if isinstance(value, int | float) else f"'{value}'")
        )

    statements = [
        "DROP TABLE IF EXISTS sales",
        "CREATE TABLE sales (id INT PRIMARY KEY, day DATE, region VARCHAR(20), "
        "amount DECIMAL(12,2), note VARCHAR(100)) CHARACTER SET utf8mb4",
    ]
    made = _rows(rows)
    for start in range(0, len(made), 5000):
        values = ", ".join(
            "(" + ", ".join(shown(v) for v in row) + ")" for row in made[start : start + 5000]
        )
        statements.append(f"INSERT INTO sales VALUES {values}")
    asyncio.run(_run_statements(url, statements))


async def _run_statements(url: str, statements: list[str]) -> None:
    connection = await asyncmy.connect(**connect_options(url, connect_timeout=10))
    try:
        async with connection.cursor() as cursor:
            for statement in statements:
                await cursor.execute(statement)
    finally:
        await connection.ensure_closed()


async def export_once(url: str, engine: str, rows: int) -> dict[str, float]:
    """Export every row once; return lines, RSS growth (MB) and seconds."""
    database = await open_database(url, engine=engine, connect_timeout=10)
    try:
        before = peak = rss_mb()
        lines = 0
        started = time.perf_counter()
        chunks = await start_csv_export(
            database, EXPORT_SQL, allowed_tables=None, max_rows=rows, timeout=60
        )
        async for chunk in chunks:
            lines += chunk.count(b"\n")
            peak = max(peak, rss_mb())
        return {
            "rows": lines - 1,
            "rss_growth_mb": round(peak - before, 1),
            "seconds": round(time.perf_counter() - started, 2),
        }
    finally:
        await database.aclose()


def main(argv: list[str] | None = None) -> int:
    """Fill the tables, export each once per side in a fresh process, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--postgres", default=None)
    parser.add_argument("--mysql", default=None)
    parser.add_argument("--one", nargs=2, metavar=("URL", "ENGINE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        url, engine = args.one
        print(json.dumps(asyncio.run(export_once(url, engine, args.rows))))
        return 0
    figures = {}
    with tempfile.TemporaryDirectory() as directory:
        urls = {"sqlite": f"sqlite:///{Path(directory) / 'export.db'}"}
        make_table(Path(directory) / "export.db", args.rows)
        if args.postgres:
            fill_postgres(args.postgres, args.rows)
            urls["postgres"] = args.postgres
        if args.mysql:
            fill_mysql(args.mysql, args.rows)
            urls["mysql"] = args.mysql
        for kind, url in urls.items():
            for engine in ("native", "generic"):
                command = [sys.executable, "-m", "bench.engines.export_memory", "--rows"]
                command += [str(args.rows), "--one", url, engine]
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                figures[f"{kind}/{engine}"] = json.loads(done.stdout.strip().splitlines()[-1])
                print(kind, engine, figures[f"{kind}/{engine}"], flush=True)
    print(json.dumps({"target_mb": TARGET_MB, "figures": figures}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

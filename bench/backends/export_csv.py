"""Memory of a CSV export: 100,000 rows from a temp SQLite table, RSS growth printed.

Run `python -m bench.backends.export_csv [--rows N]`; the target is growth under 20 MB, which holds
only because rows are read and written in batches (react_agent.databases.row_streams).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from pathlib import Path

from react_agent.databases.sqlite.engine import SQLiteDatabase
from react_agent.results.exports import start_csv_export

TARGET_MB = 20.0
REGIONS = ["华东", "华南", "华北", "华中", "西南", "西北", "东北"]


def rss_mb() -> float:
    """Return this process's resident set size in MB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def make_table(path: Path, rows: int) -> None:
    """Write a `sales` table of `rows` rows (dates, Chinese text, decimals, NULLs)."""
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE sales (id INTEGER PRIMARY KEY, day TEXT, region TEXT, "
            "amount REAL, note TEXT)"
        )
        connection.executemany(
            "INSERT INTO sales VALUES (?, ?, ?, ?, ?)",
            (
                (
                    i,
                    f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
                    REGIONS[i % len(REGIONS)],
                    round(i * 1.37 % 10_000, 2),
                    None if i % 5 == 0 else f"第 {i} 笔订单，备注文字",
                )
                for i in range(1, rows + 1)
            ),
        )


async def export(path: Path, rows: int) -> tuple[int, int, float, float]:
    """Export every row as CSV; return bytes, lines, RSS growth (MB) and seconds."""
    database = SQLiteDatabase(path)
    before = rss_mb()
    peak = before
    size = lines = 0
    started = time.perf_counter()
    chunks = await start_csv_export(
        database,
        "SELECT id, day, region, amount, note FROM sales ORDER BY id",
        allowed_tables=None,
        max_rows=rows,
        timeout=30,
    )
    async for chunk in chunks:
        size += len(chunk)
        lines += chunk.count(b"\n")
        peak = max(peak, rss_mb())
    return size, lines, peak - before, time.perf_counter() - started


def main() -> None:
    """Build the table, export it, print the numbers and whether growth met the target."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "export.db"
        make_table(path, args.rows)
        size, lines, growth, seconds = asyncio.run(export(path, args.rows))
    print(f"rows exported: {lines - 1:,} ({size / 1e6:.1f} MB of CSV) in {seconds:.1f} s")
    print(f"RSS growth during the export: {growth:.1f} MB (target < {TARGET_MB:g} MB)")
    print("OK" if growth < TARGET_MB and lines - 1 == args.rows else "FAILED")


if __name__ == "__main__":
    main()

"""Throughput at c=100 and a 100,000-row CSV export on MariaDB and DuckDB files vs SQLite.

`python -m bench.backends.throughput [--mysql-url mysql://root@127.0.0.1:3306/test]`. Figures, not
assertions. The same sample data on each backend (SQLite: the embedded file; MariaDB: a
throwaway database the sample is loaded into; DuckDB: the sample written as CSV files),
one agent per backend built by `open_agent_service` as `python -m app` builds it
(ChatOpenAI on the benchmark's stub, `python -m bench.stub`, in a process of its own, so
each question is list_tables → run_sql → answer), questions through `AgentRunner.start`
(bench/drivers/graph.py). Rounds alternate between the backends, so the machine's other
load falls on all of them; each backend's figure is the median of its rounds.

The export of each backend runs in a fresh process of its own (RSS only grows, so a
second export in the same process would show nothing): 100,000 rows generated on the
backend, exported through `start_csv_export`, peak RSS growth and seconds printed.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import asyncmy
from pydantic import SecretStr

from bench.backends.export_csv import make_table, rss_mb
from bench.drivers.graph import runner_question
from bench.measure.runner_rounds import (
    add_round_options,
    alternated_rounds,
    median_figures,
    stub_process,
)
from config import Settings
from react_agent.databases.mysql.connection import connect_options
from react_agent.results.exports import start_csv_export
from react_agent.sample_data.export_files import write_sample_folder
from react_agent.sample_data.load_mysql import load_into_mysql
from react_agent.service import open_agent_service
from react_agent.service.data_sources import open_data_source

BACKENDS = ("sqlite", "mariadb", "duckdb")
EXPORT_SQL = "SELECT id, day, region, amount, note FROM sales ORDER BY id"


async def run_statements(url: str, *statements: str) -> None:
    """Run statements on an autocommit connection of their own."""
    connection = await asyncmy.connect(**connect_options(url, connect_timeout=5))
    try:
        async with connection.cursor() as cursor:
            for statement in statements:
                await cursor.execute(statement)
    finally:
        await connection.ensure_closed()


def database_url(server_url: str, name: str) -> str:
    """Return the server's URL naming database `name`."""
    return server_url.rsplit("/", 1)[0] + "/" + name


async def throughput(args: argparse.Namespace, base_url: str, urls: dict[str, str | None]):
    """Measure each backend round after round; return every round and the medians."""
    base = Settings(
        _env_file=None,
        openai_base_url=base_url,
        openai_api_key=SecretStr("bench"),
        llm_model="stub-model",
        mysql_pool_max_size=args.concurrency,
    )
    with tempfile.TemporaryDirectory() as directory:
        async with AsyncExitStack() as stack:
            asks = {}
            for name, url in urls.items():
                settings = base.model_copy(
                    update={"data_dir": Path(directory) / name, "data_database_url": url}
                )
                service = await stack.enter_async_context(open_agent_service(settings))
                asks[name] = runner_question(service.require_runner())
            rounds = await alternated_rounds(
                asks,
                rounds=args.rounds,
                concurrency=args.concurrency,
                questions=args.questions,
            )
    medians = median_figures(rounds)
    return {"concurrency": args.concurrency, "rounds": rounds, "medians": medians}


async def export_once(backend: str, rows: int, mysql_url: str) -> dict[str, Any]:
    """Generate `rows` rows on `backend`, export them as CSV; return size, growth, seconds."""
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        if backend == "sqlite":
            make_table(folder / "export.db", rows)
            url = f"sqlite:///{folder / 'export.db'}"
        elif backend == "duckdb":
            make_table(folder / "export.db", rows)
            _sqlite_table_as_csv(folder / "export.db", folder / "files" / "sales.csv")
            url = f"duckdb:///{folder / 'files'}"
        else:
            url = mysql_url
        database = await open_data_source(Settings(_env_file=None), url)
        try:
            before = peak = rss_mb()
            started = time.perf_counter()
            chunks = await start_csv_export(
                database, EXPORT_SQL, allowed_tables=None, max_rows=rows, timeout=60
            )
            size = lines = 0
            async for chunk in chunks:
                size += len(chunk)
                lines += chunk.count(b"\n")
                peak = max(peak, rss_mb())
            seconds = time.perf_counter() - started
        finally:
            await database.aclose()
    return {
        "backend": backend,
        "rows": lines - 1,
        "csv_mb": round(size / 1e6, 1),
        "seconds": round(seconds, 2),
        "rss_growth_mb": round(peak - before, 1),
    }


def _sqlite_table_as_csv(database: Path, target: Path) -> None:
    target.parent.mkdir(parents=True)
    with sqlite3.connect(database) as connection, target.open("w", newline="") as out:
        cursor = connection.execute(EXPORT_SQL)
        writer = csv.writer(out)
        writer.writerow([c[0] for c in cursor.description])
        writer.writerows(cursor)


async def mysql_export_table(url: str, rows: int) -> None:
    """Create the `sales` table of `rows` generated rows in the MariaDB database."""
    await run_statements(
        url,
        "CREATE TABLE sales (id INT PRIMARY KEY, day DATE, region VARCHAR(10), "
        "amount DECIMAL(12,2), note VARCHAR(100))",
        "INSERT INTO sales SELECT seq, DATE('2024-01-01') + INTERVAL (seq % 365) DAY, "
        "ELT(1 + seq % 7, '华东', '华南', '华北', '华中', '西南', '西北', '东北'), "
        "ROUND(seq * 1.37 % 10000, 2), "
        "IF(seq % 5 = 0, NULL, CONCAT('第 ', seq, ' 笔订单，备注文字')) "
        f"FROM seq_1_to_{rows}",
    )


def main(argv: list[str] | None = None) -> int:
    """Set the backends up, measure, print JSON; with --export-one, one export only."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mysql-url", default="mysql://root@127.0.0.1:3306/test")
    add_round_options(parser, rounds=3, of="backend")
    parser.add_argument("--export-rows", type=int, default=100_000)
    parser.add_argument("--export-one", choices=BACKENDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.export_one:
        print(
            json.dumps(asyncio.run(export_once(args.export_one, args.export_rows, args.mysql_url)))
        )
        return 0
    name = f"bench_{uuid.uuid4().hex[:12]}"
    mysql_url = database_url(args.mysql_url, name)
    asyncio.run(run_statements(args.mysql_url, f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4"))
    try:
        asyncio.run(load_into_mysql(mysql_url))
        asyncio.run(mysql_export_table(mysql_url, args.export_rows))
        with tempfile.TemporaryDirectory() as files:
            urls = {
                "sqlite": None,
                "mariadb": mysql_url,
                "duckdb": f"duckdb:///{write_sample_folder(Path(files))}",
            }
            with stub_process(args.latency_ms) as base_url:
                measured = asyncio.run(throughput(args, base_url, urls))
        exports = [
            json.loads(
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "bench.backends.throughput",
                        "--export-one",
                        backend,
                        "--export-rows",
                        str(args.export_rows),
                        "--mysql-url",
                        mysql_url,
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            for backend in BACKENDS
        ]
    finally:
        asyncio.run(run_statements(args.mysql_url, f"DROP DATABASE IF EXISTS `{name}`"))
    print(json.dumps({"throughput": measured, "exports": exports}, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Access-policy benchmark: what the row filters' fences cost the database, per query.

`python -m bench.access.fences [--postgres URL] [--runs 30]` runs a few queries of the
sample under the sample policy's east_analyst (region 1), each rewritten with the fences
(#47: a LIMIT/OFFSET that keeps the filter below the model's SQL) and without them, on the
SQLite sample and, given a URL of a PostgreSQL database holding the sample, on PostgreSQL.
Runs alternate fenced and unfenced; it prints the median wall time of each in
milliseconds and their ratio. Figures, not assertions; it writes `bench/out/access_fences.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from typing import Any

from bench.access.rewrite import TEN_TABLE_JOIN
from bench.environment import BENCH_DIR
from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scoping import rewrite
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.databases.open import open_database
from react_agent.sample_data import SAMPLE_DATABASE_URL

POLICY = BENCH_DIR.parent / "config" / "policy.sample.yaml"
QUERIES = {
    "point lookup": "SELECT * FROM orders WHERE order_id = 2500",
    "join + group": (
        "SELECT s.store_name, count(*) AS n, sum(o.total_amount) AS total FROM orders o "
        "JOIN stores s ON s.store_id = o.store_id GROUP BY s.store_name"
    ),
    "lines by customer": (
        "SELECT c.city, sum(oi.line_amount) AS amount FROM customers c "
        "JOIN orders o ON o.customer_id = c.customer_id "
        "JOIN order_items oi ON oi.order_id = o.order_id GROUP BY c.city"
    ),
    "10-table join": TEN_TABLE_JOIN.strip(),
}


def _fences(on: bool, saved: dict[str, str]) -> None:
    rewrite.FENCES.update(saved if on else dict.fromkeys(saved, ""))
    rewrite._subquery_text.cache_clear()


async def measure(url: str, runs: int) -> dict[str, dict[str, float]]:
    """Return, per query, the median milliseconds fenced and unfenced and their ratio."""
    database = await open_database(url, connect_timeout=5)
    saved = dict(rewrite.FENCES)
    try:
        columns = TableColumns(database)
        policy = load_policy(POLICY, await columns.get())
        scope = policy.scope_for(policy.actor_for("alice"))
        figures = {}
        for name, sql in QUERIES.items():
            times: dict[bool, list[float]] = {True: [], False: []}
            for run in range(runs + 2):
                for on in (True, False) if run % 2 else (False, True):
                    _fences(on, saved)
                    started = time.perf_counter()
                    await run_in_scope(database, sql, scope, columns, row_limit=1000, timeout=60)
                    if run >= 2:  # the first two rounds warm caches
                        times[on].append((time.perf_counter() - started) * 1000)
            fenced, unfenced = (statistics.median(times[on]) for on in (True, False))
            figures[name] = {
                "fenced_ms": round(fenced, 2),
                "unfenced_ms": round(unfenced, 2),
                "ratio": round(fenced / unfenced, 2),
            }
        return figures
    finally:
        _fences(True, saved)
        await database.aclose()


def main(argv: list[str] | None = None) -> int:
    """Measure, print a Markdown table and write bench/out/access_fences.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="URL of a PostgreSQL database holding the sample")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    urls: dict[str, Any] = {"sqlite": SAMPLE_DATABASE_URL}
    if args.postgres:
        urls["postgres"] = args.postgres
    results = {engine: asyncio.run(measure(url, args.runs)) for engine, url in urls.items()}
    load = os.getloadavg()[0]
    print(f"{args.runs} runs each, wall time, load average {load:.2f} on {os.cpu_count()} cores")
    print("| engine | query | fenced ms | unfenced ms | ratio |\n|---|---|---|---|---|")
    for engine, figures in results.items():
        for name, f in figures.items():
            print(f"| {engine} | {name} | {f['fenced_ms']} | {f['unfenced_ms']} | {f['ratio']} |")
    out = BENCH_DIR / "out" / "access_fences.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"load": load, "runs": args.runs, "figures": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

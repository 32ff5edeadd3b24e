"""Access-policy benchmark: the scope rewrite's time for a 10-table join (target p99 ≤ 2 ms).

`python -m bench.access.rewrite [--runs 2000]` rewrites one query joining ten table
references of the sample (eight of them filtered by the sample policy's east_analyst, one
with a denied column, each filtered subquery fenced) on the four dialects, and prints
p50/p99/max in milliseconds next to the time sqlglot takes to parse the same SQL. The
rewrite reads the guard's cached parse tree, so its figure is what the scope adds after the
guard (which parses once anyway). Figures, not assertions; it writes
`bench/out/access_rewrite.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import sqlglot

from bench.environment import BENCH_DIR
from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scoping.rewrite import apply_scope
from react_agent.guard.sql_guard import check_query

POLICY = Path(__file__).resolve().parents[2] / "config" / "policy.sample.yaml"
CATALOG = {
    "regions": ["region_id", "region_name"],
    "stores": ["store_id", "store_name", "region_id", "city", "opened_on"],
    "products": ["product_id", "product_name", "category", "unit_price", "unit_cost"],
    "customers": [
        "customer_id",
        "customer_name",
        "gender",
        "city",
        "region_id",
        "member_level",
        "joined_on",
    ],
    "orders": ["order_id", "customer_id", "store_id", "order_date", "status", "total_amount"],
    "order_items": [
        "order_item_id",
        "order_id",
        "product_id",
        "quantity",
        "unit_price",
        "discount",
        "line_amount",
    ],
}
TEN_TABLE_JOIN = """
SELECT r.region_name, s.store_name, c.customer_name, p.product_name, count(*) AS lines,
       sum(oi.line_amount) AS amount
FROM orders o
JOIN order_items oi ON oi.order_id = o.order_id
JOIN products p ON p.product_id = oi.product_id
JOIN stores s ON s.store_id = o.store_id
JOIN regions r ON r.region_id = s.region_id
JOIN customers c ON c.customer_id = o.customer_id
JOIN regions cr ON cr.region_id = c.region_id
JOIN orders o2 ON o2.customer_id = c.customer_id AND o2.order_id <> o.order_id
JOIN stores s2 ON s2.store_id = o2.store_id
JOIN order_items oi2 ON oi2.order_id = o2.order_id
WHERE o.status = '已完成' AND o.order_date >= '2025-01-01'
GROUP BY r.region_name, s.store_name, c.customer_name, p.product_name
ORDER BY amount DESC
LIMIT 20
"""


def percentiles(samples_ns: list[int]) -> dict[str, float]:
    """Return p50, p99 and max of nanosecond samples, in milliseconds."""
    ordered = sorted(samples_ns)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "p50_ms": round(statistics.median(ordered) / 1e6, 3),
        "p99_ms": round(p99 / 1e6, 3),
        "max_ms": round(ordered[-1] / 1e6, 3),
    }


def measure(runs: int, clock=time.thread_time_ns) -> dict[str, dict[str, dict[str, float]]]:
    """Time the rewrite and a bare parse of the 10-table join, per dialect.

    The default clock is this thread's CPU time: on a loaded machine wall time mostly
    measures waiting for a core; `--wall` measures wall time instead.
    """
    policy = load_policy(POLICY, CATALOG)
    scope = policy.scope_for(policy.actor_for("alice"))
    figures = {}
    for dialect in ("sqlite", "postgres", "mysql", "duckdb"):
        for _ in range(50):  # warm-up: caches, first-call imports
            apply_scope(TEN_TABLE_JOIN, dialect, scope, CATALOG)
        rewrite, parse = [], []
        for _ in range(runs):
            # As run_sql does it: the guard first (its parse is cached), then the rewrite.
            check_query(TEN_TABLE_JOIN, dialect, None)
            started = clock()
            apply_scope(TEN_TABLE_JOIN, dialect, scope, CATALOG)
            rewrite.append(clock() - started)
            started = clock()
            sqlglot.parse_one(TEN_TABLE_JOIN, read=dialect)
            parse.append(clock() - started)
        figures[dialect] = {"rewrite": percentiles(rewrite), "parse_only": percentiles(parse)}
    return figures


def main(argv: list[str] | None = None) -> int:
    """Measure, print a Markdown table and write bench/out/access_rewrite.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--wall", action="store_true", help="wall time, not thread CPU time")
    args = parser.parse_args(argv)
    figures = measure(args.runs, time.perf_counter_ns if args.wall else time.thread_time_ns)
    load = os.getloadavg()[0]
    clock = "wall" if args.wall else "thread CPU"
    print(
        f"10-table join, {args.runs} runs, {clock} time, "
        f"load average {load:.2f} on {os.cpu_count()} cores"
    )
    print("| dialect | step | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|")
    for dialect, steps in figures.items():
        for step, f in steps.items():
            print(f"| {dialect} | {step} | {f['p50_ms']} | {f['p99_ms']} | {f['max_ms']} |")
    out = BENCH_DIR / "out" / "access_rewrite.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"load": load, "runs": args.runs, "clock": clock, "figures": figures}, indent=2)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

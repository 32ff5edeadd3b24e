"""SQL lint benchmark: every rule on a 10-table join, per statement (target p99 ≤ 2 ms).

`python -m bench.lint.statement [--runs 2000] [--wall]` lints the 10-table join of
bench/access/rewrite.py with the sample's keys as the catalogue and a top-N question, on
the four dialects, and prints p50/p99/max in milliseconds. As in run_sql, the guard has
parsed the statement first (the lint reads its cached tree), so the figure is what the lint
adds. Figures, not assertions; it writes `bench/out/lint_statement.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from bench.access.rewrite import CATALOG as COLUMNS
from bench.access.rewrite import TEN_TABLE_JOIN, percentiles
from bench.environment import BENCH_DIR
from react_agent.databases.catalog_model import Catalog, CatalogColumn, CatalogTable
from react_agent.guard.sql_guard import check_query
from react_agent.lint.linter import lint_statement

QUESTION = "销售额最高的前20个组合是哪些？"
KEYS = {
    "regions": "region_id",
    "stores": "store_id",
    "products": "product_id",
    "customers": "customer_id",
    "orders": "order_id",
    "order_items": "order_item_id",
}


def sample_catalog() -> Catalog:
    """Return the sample's tables with their primary keys (the lint's join rule reads them)."""
    tables = tuple(
        CatalogTable(
            name,
            tuple(CatalogColumn(c, "INTEGER" if c.endswith("_id") else "TEXT") for c in columns),
            primary_key=(KEYS[name],),
        )
        for name, columns in COLUMNS.items()
    )
    return Catalog("sqlite", tables)


def measure(runs: int, clock=time.thread_time_ns) -> dict[str, dict[str, float]]:
    """Time the lint of the 10-table join per dialect (after the guard's cached parse)."""
    catalog = sample_catalog()
    figures = {}
    for dialect in ("sqlite", "postgres", "mysql", "duckdb"):
        check_query(TEN_TABLE_JOIN, dialect, None)
        warnings = lint_statement(TEN_TABLE_JOIN, dialect, QUESTION, catalog)
        for _ in range(50):
            lint_statement(TEN_TABLE_JOIN, dialect, QUESTION, catalog)
        samples = []
        for _ in range(runs):
            check_query(TEN_TABLE_JOIN, dialect, None)
            started = clock()
            lint_statement(TEN_TABLE_JOIN, dialect, QUESTION, catalog)
            samples.append(clock() - started)
        figures[dialect] = {**percentiles(samples), "warnings": [w.rule for w in warnings]}
    return figures


def main(argv: list[str] | None = None) -> int:
    """Measure, print a Markdown table and write bench/out/lint_statement.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--wall", action="store_true", help="wall time, not thread CPU time")
    args = parser.parse_args(argv)
    figures = measure(args.runs, time.perf_counter_ns if args.wall else time.thread_time_ns)
    load = os.getloadavg()[0]
    clock = "wall" if args.wall else "thread CPU"
    print(
        f"lint of a 10-table join, {args.runs} runs, {clock} time, "
        f"load average {load:.2f} on {os.cpu_count()} cores"
    )
    print("| dialect | p50 ms | p99 ms | max ms | warnings |\n|---|---|---|---|---|")
    for dialect, f in figures.items():
        rules = ", ".join(f["warnings"]) or "none"
        print(f"| {dialect} | {f['p50_ms']} | {f['p99_ms']} | {f['max_ms']} | {rules} |")
    out = BENCH_DIR / "out" / "lint_statement.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"load": load, "runs": args.runs, "clock": clock, "figures": figures}, indent=2)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

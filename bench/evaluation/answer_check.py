"""The answer check's time per answer over 1,000 rows: `python -m bench.evaluation.answer_check`.

Figures, not assertions (target: p99 ≤ 1 ms). The result is 1,000 orders of the sample
database (id, date, store, status, amount); the answers state ten figures in Chinese and
English formats (thousands separators, 万, %, a column total, a share, a wrong one) and
name a few stores, as an analyst's answer over such a table would.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import time

from react_agent.results.answer_check import check_answer
from react_agent.sample_data import SAMPLE_DB_PATH

SQL = (
    "SELECT o.order_id, o.order_date, s.store_name, o.status, o.total_amount "
    "FROM orders o JOIN stores s ON o.store_id = s.store_id ORDER BY o.order_id LIMIT 1000"
)


def sample_records() -> dict:
    """Return the 1,000-row result as the API's records object."""
    with sqlite3.connect(f"file:{SAMPLE_DB_PATH}?mode=ro", uri=True) as connection:
        cursor = connection.execute(SQL)
        columns = [d[0] for d in cursor.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    return {"columns": columns, "rows": rows, "total_row_count": len(rows), "is_limited": False}


def answers(records: dict) -> list[str]:
    """Return answers that cite the result in several formats."""
    rows = records["rows"]
    amounts = [row["total_amount"] for row in rows]
    total = sum(amounts)
    top = max(rows, key=lambda row: row["total_amount"])
    share = top["total_amount"] / total
    return [
        f"前1000笔订单合计{total:,.2f}元，约{total / 1e4:.1f}万元；最大一笔是{top['store_name']}"
        f"的{top['total_amount']:,.2f}元，占{share:.2%}。共{len(rows)}笔，其中"
        f"{rows[3]['store_name']}一笔{rows[3]['total_amount']:.2f}元，{rows[8]['order_date']}"
        f"一笔{rows[8]['total_amount']:,.0f}元，另有一笔99,999.99元。",
        f"The first {len(rows)} orders total {total:,.0f} CNY ({total / 1e6:.2f} million); "
        f"the largest, {top['total_amount']:,.2f} CNY at {top['store_name']}, is {share:.1%} "
        f"of it. Order {rows[5]['order_id']} was {rows[5]['total_amount']:.1f} CNY on "
        f"{rows[5]['order_date']}; one was 12,345.67 CNY.",
    ]


def percentiles(times: list[float]) -> dict:
    """Return p50, p99 and max of times in seconds, in milliseconds."""
    times = sorted(times)
    return {
        "p50_ms": round(statistics.median(times) * 1000, 3),
        "p99_ms": round(times[int(len(times) * 0.99) - 1] * 1000, 3),
        "max_ms": round(times[-1] * 1000, 3),
    }


def measure(runs: int) -> dict:
    """Return the check's time per answer, in milliseconds, and what it found."""
    records = sample_records()
    texts = answers(records)
    context = "前1000笔订单\n" + SQL
    for text in texts:  # warm-up (regex compilation, imports)
        check_answer(text, [records], context)
    times, cpu = [], []
    for i in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        check_answer(texts[i % len(texts)], [records], context)
        cpu.append(time.process_time() - started_cpu)
        times.append(time.perf_counter() - started)
    return {
        "rows": records["total_row_count"],
        "answers": len(texts),
        "runs": runs,
        "wall": percentiles(times),
        # CPU time of this process only: what the check costs when the machine is busy
        # and the wall clock also counts the time it waited for a core.
        "cpu": percentiles(cpu),
        "checks": [check_answer(text, [records], context) for text in texts],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    args = parser.parse_args(argv)
    figures = measure(args.runs)
    figures["load_average"] = os.getloadavg()
    print(json.dumps(figures, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

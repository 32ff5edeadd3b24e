"""A two-source join at c=20: federated (PostgreSQL + MariaDB) vs the same data in one PostgreSQL.

`python -m bench.sources.join --pg URL --mysql URL --one-pg URL`: `--pg` and `--one-pg`
hold the sample (stores and orders), `--mysql` too; the federated side joins
`sales.orders` (PostgreSQL) with `fin.stores` (MariaDB) through DuckDB, the other side
joins both tables in one PostgreSQL. Each side runs `--questions` statements by
`--concurrency` closed-loop workers, in alternated rounds; figures to stdout as Markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from config import Settings
from react_agent.service.data_sources import open_named_sources

FEDERATED = (
    "SELECT s.store_name, count(*) AS n, sum(o.total_amount) AS amount FROM sales.orders o "
    "JOIN fin.stores s ON s.store_id = o.store_id GROUP BY s.store_name ORDER BY amount DESC"
)
ONE_DATABASE = FEDERATED.replace("fin.stores", "sales.stores")


async def measure(database, sql: str, questions: int, concurrency: int) -> list[float]:
    """Return each statement's latency (s), `concurrency` workers in a closed loop."""
    latencies: list[float] = []
    left = iter(range(questions))

    async def worker() -> None:
        for _ in left:
            start = time.perf_counter()
            result = await database.run_query(sql, row_limit=1000, timeout=60)
            latencies.append(time.perf_counter() - start)
            assert result.rows, "the join returned nothing"

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies


def p(values: list[float], q: float) -> float:
    """Return the q-quantile of `values` in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(args: argparse.Namespace) -> None:
    """Open both sides, warm each up, measure them in alternated rounds, print the table."""
    federated = await open_named_sources(
        Settings(data_sources=f"sales={args.pg};fin={args.mysql}", _env_file=None)
    )
    single = await open_named_sources(Settings(data_sources=f"sales={args.one_pg}", _env_file=None))
    sides = {
        "federated (PostgreSQL + MariaDB in DuckDB)": (federated, FEDERATED),
        "one PostgreSQL": (single, ONE_DATABASE),
    }
    got: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for database, sql in sides.values():
            await measure(database, sql, args.concurrency, args.concurrency)  # warm-up
        for _ in range(args.rounds):
            for name, (database, sql) in sides.items():
                got[name] += await measure(database, sql, args.questions, args.concurrency)
    finally:
        await federated.aclose()
        await single.aclose()
    load = os.getloadavg()
    print(
        f"c={args.concurrency}, {args.rounds} rounds of {args.questions} statements per side; "
        f"load average before the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n"
    )
    print("| side | p50 ms | p95 ms | mean ms |\n|---|---|---|---|")
    for name, values in got.items():
        print(
            f"| {name} | {p(values, 0.5):.1f} | {p(values, 0.95):.1f} | "
            f"{1000 * statistics.fmean(values):.1f} |"
        )
    (fed, one) = got.values()
    print(
        f"\nlatency ratio federated / one PostgreSQL: p50 {p(fed, 0.5) / p(one, 0.5):.2f}, "
        f"p95 {p(fed, 0.95) / p(one, 0.95):.2f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pg", required=True)
    parser.add_argument("--mysql", required=True)
    parser.add_argument("--one-pg", required=True)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args()))

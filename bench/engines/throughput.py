"""The generic engine against the native one at c=100: `python -m bench.engines.throughput`.

Figures, not assertions. Two agents built by `react_agent.service.open_agent_service` as
`python -m app` builds them (ChatOpenAI on the benchmark's stub, `python -m bench.stub`, in
a process of its own; a SQLite checkpointer each) on the same data database: `native`
(DATA_ENGINE=native) and `generic` (DATA_ENGINE=generic, the SQLAlchemy engine). Questions go
through `AgentRunner.start` at a fixed concurrency; rounds alternate the order of the sides.
Prints each side's median questions/s and CPU per question and the ratio `generic / native`
(target ≥ 0.8). `--data-url` names the database (default: the embedded SQLite sample; the
sample loaded into PostgreSQL or MariaDB: `python -m react_agent.sample_data.load_postgres
URL`, `… load_mysql URL`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bench.measure.agent_sides import measure_sides, run_comparison

SIDES = ("native", "generic")


async def compare(args: argparse.Namespace, stub_url: str) -> dict[str, Any]:
    """Measure both sides, round after round in alternating order; return every figure."""
    head = await measure_sides(args, stub_url, {name: {"data_engine": name} for name in SIDES})
    qps, cpu = head["median_qps"], head["cpu_ms_per_question"]
    return {
        **head,
        "data_url": args.data_url or "the embedded SQLite sample",
        "ratio_generic_native": round(qps["generic"] / qps["native"], 3),
        "cpu_ratio_native_generic": round(cpu["native"] / cpu["generic"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print it as JSON."""
    return run_comparison(argv, __doc__.splitlines()[0], compare)


if __name__ == "__main__":
    sys.exit(main())

"""Evaluation throughput with the scripted model: `python -m bench.evaluation.throughput`.

Figures, not assertions. Runs the shipped golden set (react_agent/eval/golden/sample.jsonl)
through the real agent in this process, with the tests' golden script model (it answers
with each gold SQL, so every question runs the graph, the SQL tool and both scorings), at
several concurrencies; reports questions per second (question runs per second with
`--repeat K`, each question asked K times). `--out DIR` also writes the last run's report
(report.json, report.md, chart.svg), as docs/evaluation.md shows one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from config import Settings
from react_agent.eval.golden import SAMPLE_GOLDEN_SET, read_golden_set
from react_agent.eval.report import write_report
from react_agent.eval.sessions import evaluate_in_process
from tests.support.golden_model import GoldenScriptModel

# Known mistakes, so the written report shows failures with their reasons.
MISTAKES = {
    "q06-en": "SELECT product_name, unit_price FROM products ORDER BY unit_price DESC LIMIT 3",
    "q09-zh": "SELECT COUNT(*) FROM customers WHERE gender = '男'",
    "q04-zh": "DELETE FROM orders",
}


async def measure(concurrency: int, out: Path | None, repeat: int = 1) -> dict:
    """Return the wall time and throughput of one run of the whole set."""
    questions = read_golden_set(SAMPLE_GOLDEN_SET)
    model = GoldenScriptModel(questions=questions, mistakes=MISTAKES)
    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(
            _env_file=None, data_dir=Path(directory), openai_api_key=None, memory=False
        )
        started = time.perf_counter()
        report = await evaluate_in_process(
            questions,
            settings,
            model=model,
            concurrency=concurrency,
            repeat=repeat,
            meta={"golden_set": "react_agent/eval/golden/sample.jsonl"},
        )
        seconds = time.perf_counter() - started
    if out is not None:
        write_report(out, report)
    return {
        "concurrency": concurrency,
        "repeat": repeat,
        "questions": report["total"],
        "accuracy": report["accuracy"],
        "pass_all": report["pass_all"],
        "seconds": round(seconds, 2),
        "questions_per_second": round(report["total"] / seconds, 1),
        "runs_per_second": round(report["total"] * repeat / seconds, 1),
    }


async def run(concurrencies: list[int], out: Path | None, repeat: int = 1) -> dict:
    """Measure each concurrency in turn; the last one writes the report."""
    runs = [
        await measure(c, out if i == len(concurrencies) - 1 else None, repeat)
        for i, c in enumerate(concurrencies)
    ]
    return {"runs": runs, "load_average": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each question")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(run(args.concurrency, args.out, args.repeat)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Schema at scale: `python -m bench.schema_scale [--postgres URL] [--out DIR]`.

Figures, not assertions. Generates 1,000 tables / ~15,000 columns (bench/schema_scale/schema.py)
on SQLite (comments through a generated semantic file) and, with --postgres, on a throwaway
PostgreSQL database (COMMENT ON); builds the catalogue with CatalogService as the service
does, then asks the 320 generated questions of the retrieval step (SchemaContext at
SCHEMA_PROMPT_BUDGET=6000): gold-table recall at 5 and 10, value-link precision and recall,
schema characters per prompt, retrieval latency, build time and memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from pathlib import Path

from bench.schema_scale.measure import drop_database, measure_retrieval, timed_build
from bench.schema_scale.questions import build_questions
from bench.schema_scale.report import write_report
from bench.schema_scale.schema import build_tables


async def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and write results.json and results.md beside this module."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", help="server URL to create a throwaway database on")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    parser.add_argument("--budget", type=int, default=6000)
    args = parser.parse_args(argv)
    tables = build_tables()
    questions = build_questions(tables)
    results: dict = {
        "tables": len(tables),
        "columns": sum(len(t.columns) for t in tables),
        "questions": len(questions),
        "budget": args.budget,
        "load_average": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory() as scratch:
        builds = {"sqlite": await timed_build(tables, "sqlite", Path(scratch), None)}
        if args.postgres:
            builds["postgres"] = await timed_build(tables, "postgres", Path(scratch), args.postgres)
    for dialect, (figures, service) in builds.items():
        results[dialect] = {
            "build": figures,
            "retrieval": await measure_retrieval(service, questions, args.budget),
        }
        await service.database.aclose()
        url = figures.pop("url")
        if dialect == "postgres":
            drop_database(args.postgres, url)
    results["load_average_after"] = os.getloadavg()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False))
    write_report(results, args.out / "results.md")
    print(json.dumps(results, indent=2, ensure_ascii=False))
    return results


if __name__ == "__main__":
    asyncio.run(main())

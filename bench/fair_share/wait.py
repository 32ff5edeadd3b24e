"""The light user's wait while another floods one source: `python -m bench.fair_share.wait`.

Figures, not assertions. One PostgreSQL data source (a database of its own on the server
`--url` names; the pool at `--pool` connections). A flooding user keeps `--flood`
statements waiting at all times; a light user asks one statement at a time, `--light`
times. Two sides, in alternated rounds: `pool` (statements go straight to the engine: they
queue in the pool in arrival order, as before the fair share) and `fair` (the engine behind
`databases/gated.GatedDatabase` with `max_concurrent` = the pool's size: turns round robin
between users). Each statement sleeps `--service-ms` on the server, so the figures measure
the queue, not the machine. Prints each round and each side's median of the light user's
p50/p95 latency, and the ratio `pool / fair` of the p95 (how much sooner the light user is
served).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import statistics
import time
import uuid
from typing import Any

import psycopg

from react_agent.databases.base import SQLDatabase
from react_agent.databases.fair_share import ASKER, FairShare
from react_agent.databases.gated import GatedDatabase
from react_agent.databases.open import open_database

SIDES = ("pool", "fair")


async def one_round(database: SQLDatabase, args: argparse.Namespace) -> dict[str, float]:
    """Flood the source and time the light user's statements; return their p50 and p95 (ms)."""
    statement = f"SELECT pg_sleep({args.service_ms / 1000})"
    stop = asyncio.Event()

    async def run() -> None:
        await database.run_query(statement, row_limit=1, timeout=60)

    async def flood_worker() -> None:
        while not stop.is_set():
            await run()

    flood_context = contextvars.copy_context()
    flood_context.run(ASKER.set, "flood")
    loop = asyncio.get_running_loop()
    flood = [loop.create_task(flood_worker(), context=flood_context) for _ in range(args.flood)]
    await asyncio.sleep(args.service_ms / 1000 * 2)  # the flood's queue fills first
    ASKER.set("light")
    waits = []
    for _ in range(args.light):
        started = time.perf_counter()
        await run()
        waits.append((time.perf_counter() - started) * 1000)
    stop.set()
    await asyncio.gather(*flood)
    quantiles = statistics.quantiles(waits, n=20)
    return {"p50_ms": round(statistics.median(waits), 1), "p95_ms": round(quantiles[18], 1)}


def fresh_database(server: str) -> str:
    """Create an empty database on `server` for this run; return its URL."""
    name = f"bench_fair_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return server.rsplit("/", 1)[0] + f"/{name}"


def drop_database(server: str, url: str) -> None:
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Run both sides in alternated rounds; return each round and each side's medians."""
    url = fresh_database(args.url)
    try:
        engine = await open_database(url, min_size=args.pool, max_size=args.pool)
        share = FairShare("bench", max_concurrent=args.pool, max_wait=600)
        sides: dict[str, SQLDatabase] = {"pool": engine, "fair": GatedDatabase(engine, share)}
        rounds: dict[str, list[dict[str, float]]] = {side: [] for side in SIDES}
        for number in range(args.rounds):
            order = SIDES if number % 2 == 0 else tuple(reversed(SIDES))
            for side in order:
                figures = await one_round(sides[side], args)
                rounds[side].append(figures)
                print(f"round {number + 1} {side}: {figures}", flush=True)
        await engine.aclose()
    finally:
        drop_database(args.url, url)
    medians = {
        side: {key: statistics.median(r[key] for r in rounds[side]) for key in ("p50_ms", "p95_ms")}
        for side in SIDES
    }
    ratio = round(medians["pool"]["p95_ms"] / medians["fair"]["p95_ms"], 2)
    return {
        "settings": vars(args),
        "rounds": rounds,
        "medians": medians,
        "p95_pool_over_fair": ratio,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--pool", type=int, default=4)
    parser.add_argument("--flood", type=int, default=32)
    parser.add_argument("--light", type=int, default=40)
    parser.add_argument("--service-ms", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    report = asyncio.run(measure(args))
    print(json.dumps(report["medians"]), "p95 pool/fair:", report["p95_pool_over_fair"])
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=2)


if __name__ == "__main__":
    main()

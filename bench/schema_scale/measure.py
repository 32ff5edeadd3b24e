"""Building the catalogue of the generated schema, and scoring the retrieval step on questions."""

from __future__ import annotations

import statistics
import time
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

import psycopg

from bench.schema_scale.load import write_postgres, write_semantic_file, write_sqlite
from bench.schema_scale.questions import Question
from bench.schema_scale.schema import Table
from react_agent.catalog.context import SchemaContext
from react_agent.catalog.service import CatalogService
from react_agent.databases.open import open_database


async def timed_build(
    tables: list[Table], dialect: str, scratch: Path, server_url: str | None
) -> tuple[dict[str, Any], CatalogService]:
    """Write the schema, then build its catalogue as the service does; time and size it."""
    semantic = None
    started = time.perf_counter()
    if dialect == "sqlite":
        path = scratch / "schema_scale.db"
        write_sqlite(tables, path)
        semantic = scratch / "semantic.yaml"
        write_semantic_file(tables, semantic)
        url = f"sqlite:///{path}"
    else:
        assert server_url is not None
        url = _create_database(server_url)
        write_postgres(tables, url)
    written = time.perf_counter() - started
    database = await open_database(url, connect_timeout=10)
    service = CatalogService(database, None, semantic_file=semantic)
    tracemalloc.start()
    started = time.perf_counter()
    catalog = await database.introspect()
    introspected = time.perf_counter() - started
    snapshot = await service.refresh()
    built = time.perf_counter() - started
    context = SchemaContext(service, 6000)
    await context.prompt_section("warm up the indexes")
    indexed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figures = {
        "write_seconds": round(written, 1),
        "introspect_seconds": round(introspected, 2),
        "refresh_seconds": round(built - introspected, 2),
        "refresh_and_index_seconds": round(indexed - introspected, 2),
        "python_peak_mb": round(peak / 1e6, 1),
        "tables": len(catalog.tables),
        "columns": catalog.column_count,
        "columns_with_values": sum(1 for t in catalog.tables for c in t.columns if c.values),
        "semantic_problems": len(snapshot.problems),
        "url": url,
    }
    return figures, service


def drop_database(server_url: str, url: str) -> None:
    """Drop the throwaway database `_create_database` made."""
    name = url.rpartition("/")[2]
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _create_database(server_url: str) -> str:
    name = f"schema_scale_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    base, _, _ = server_url.rpartition("/")
    return f"{base}/{name}"


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure_retrieval(
    service: CatalogService, questions: list[Question], budget: int
) -> dict[str, Any]:
    """Return recall@5/@10, value-link precision/recall, prompt characters and latency."""
    context = SchemaContext(service, budget)
    snapshot = await service.current()
    assert snapshot is not None
    hits5 = hits10 = gold_count = 0
    linked = correct = gold_values = 0
    chars: list[int] = []
    latency: list[float] = []
    by_kind: dict[str, list[int]] = {}
    for question in questions:
        started = time.perf_counter()
        section = await context.prompt_section(question.text)
        latency.append((time.perf_counter() - started) * 1000)
        chars.append(len(section))
        ranked = [t.name for t in await context.search(question.text, 10)]
        found5 = len(question.gold_tables & set(ranked[:5]))
        found10 = len(question.gold_tables & set(ranked))
        hits5, hits10 = hits5 + found5, hits10 + found10
        gold_count += len(question.gold_tables)
        kind = by_kind.setdefault(question.kind, [0, 0])
        kind[0], kind[1] = kind[0] + found10, kind[1] + len(question.gold_tables)
        said = context.value_links(snapshot, question.text)
        links = {(link.table, link.column, link.value) for link in said}
        linked += len(links)
        correct += len(links & question.gold_values)
        gold_values += len(question.gold_values)
    return {
        "recall_at_5": round(hits5 / gold_count, 3),
        "recall_at_10": round(hits10 / gold_count, 3),
        "recall_at_10_by_kind": {k: round(v[0] / v[1], 3) for k, v in by_kind.items()},
        "value_link_precision": round(correct / linked, 3) if linked else None,
        "value_link_recall": round(correct / gold_values, 3) if gold_values else None,
        "prompt_chars_mean": round(statistics.mean(chars)),
        "prompt_chars_max": max(chars),
        "retrieval_ms_p50": round(_percentile(latency, 0.5), 2),
        "retrieval_ms_p99": round(_percentile(latency, 0.99), 2),
    }

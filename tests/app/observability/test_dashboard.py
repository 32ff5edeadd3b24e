"""The Grafana dashboard and the docs name only metrics the service has."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import CollectorRegistry

from react_agent.observability.metrics import ServiceMetrics

DOCS = Path(__file__).resolve().parents[3] / "docs"
SUFFIXES = ("_bucket", "_sum", "_count", "_total")


def service_metric_names() -> set[str]:
    registry = CollectorRegistry()
    ServiceMetrics(registry)
    return {family.name for family in registry.collect()}


def base_name(name: str) -> str:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def test_every_metric_of_the_dashboard_exists():
    dashboard = json.loads((DOCS / "grafana-dashboard.json").read_text(encoding="utf-8"))
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    used = {base_name(n) for e in exprs for n in re.findall(r"sqlagent_\w+", e)}
    assert used and used <= service_metric_names()
    # The queue, tokens, model and SQL time the dashboard promises are there.
    assert {
        "sqlagent_runs_queued",
        "sqlagent_model_tokens",
        "sqlagent_sql_query_duration_seconds",
    } <= used


def test_the_docs_list_every_metric_and_no_other():
    text = (DOCS / "observability.md").read_text(encoding="utf-8")
    listed = {base_name(n) for n in re.findall(r"^\| `(sqlagent_\w+)`", text, re.MULTILINE)}
    assert listed == service_metric_names()

"""`python -m app --workers 2` with METRICS=on: /metrics adds up what both workers did."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from prometheus_client import multiprocess

from tests.app.observability.test_metrics import parse_metrics
from tests.support.service_process import free_port, start_service_process, start_stub_llm

QUESTIONS = 12
ASK = "/api/v0/ask_react_agent"


def worker_counts(directory: Path, name: str) -> dict[str, float]:
    """Return each worker's own value of an unlabelled counter, by the pid in its file."""
    counts = {}
    for path in directory.glob("counter_*.db"):
        pid = path.stem.partition("_")[2]
        for metric in multiprocess.MultiProcessCollector.merge([str(path)], accumulate=True):
            for sample in metric.samples:
                if sample.name == name:
                    counts[pid] = counts.get(pid, 0) + sample.value
    return counts


def test_two_workers_metrics_are_summed(postgres_database: str, tmp_path: Path):
    metrics_dir = tmp_path / "metrics"
    with (
        start_stub_llm(latency_ms=150) as llm_url,
        start_service_process(
            {
                "OPENAI_BASE_URL": llm_url,
                "CHECKPOINT_DATABASE_URL": postgres_database,
                "WORKERS": "2",
                "METRICS": "on",
                "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
            },
            tmp_path,
        ) as base_url,
    ):
        before = parse_metrics(httpx.get(f"{base_url}/metrics", timeout=30).text)

        def ask(n: int) -> int:
            body = {"question": "每个地区的销售额是多少", "user_id": f"w{n}"}
            return httpx.post(f"{base_url}{ASK}", json=body, timeout=60).status_code

        with ThreadPoolExecutor(QUESTIONS) as pool:
            statuses = list(pool.map(ask, range(QUESTIONS)))
        after = parse_metrics(httpx.get(f"{base_url}/metrics", timeout=30).text)
        per_worker = worker_counts(metrics_dir, "sqlagent_runs_started_total")

    assert statuses == [200] * QUESTIONS
    started = ("sqlagent_runs_started_total", frozenset())
    completed = ("sqlagent_runs_finished_total", frozenset({("outcome", "completed")}))
    http = (
        "sqlagent_http_requests_total",
        frozenset({("method", "POST"), ("route", ASK), ("status", "200")}),
    )
    for key in (started, completed, http):
        assert after[key] - before.get(key, 0) == QUESTIONS, key
    # Two workers counted, and /metrics is the sum of what each counted (twelve questions
    # at once are usually shared between them: 8 and 4 on the run this test was written on).
    assert len(per_worker) == 2, per_worker
    assert sum(per_worker.values()) == after[started]
    assert after[("sqlagent_runs_active", frozenset())] == 0


def test_metrics_port_serves_metrics_without_a_key_and_the_api_port_does_not(tmp_path: Path):
    port = free_port()
    with (
        start_stub_llm() as llm_url,
        start_service_process(
            {
                "OPENAI_BASE_URL": llm_url,
                "METRICS": "on",
                "METRICS_PORT": str(port),
                "API_KEYS": "metrics-port-key",
            },
            tmp_path,
        ) as base_url,
    ):
        on_api_port = httpx.get(
            f"{base_url}/metrics", headers={"Authorization": "Bearer metrics-port-key"}
        )
        scraped = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=30)

    assert on_api_port.status_code == 404
    assert scraped.status_code == 200
    samples = parse_metrics(scraped.text)
    health = ("method", "GET"), ("route", "/health"), ("status", "200")
    assert samples[("sqlagent_http_requests_total", frozenset(health))] >= 1

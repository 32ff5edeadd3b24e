"""`python -m app --workers N`: N processes on one port, refused on SQLite."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.support.openai_stub import OpenAIStub
from tests.support.service_process import (
    READY_TIMEOUT,
    REPO_ROOT,
    service_environment,
    spawn_service,
    stop_process,
    wait_until_ready,
)

WORKERS = 2
ASK = "/api/v0/ask_react_agent"


def worker_pids(supervisor: int) -> set[int]:
    """Return the supervisor's children that serve (not multiprocessing's resource tracker)."""
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
    return {
        int(pid)
        for pid in children
        if "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    }


def test_several_workers_on_sqlite_are_refused_with_the_setting_to_change(tmp_path):
    env = service_environment({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, tmp_path)
    finished = subprocess.run(
        [sys.executable, "-m", "app", "--workers", str(WORKERS)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=READY_TIMEOUT * 2,
    )
    assert finished.returncode == 2
    assert "CHECKPOINT_DATABASE_URL" in finished.stderr and "WORKERS=2" in finished.stderr


def test_two_workers_share_one_port_and_answer_every_question(postgres_database, tmp_path):
    with OpenAIStub() as stub:
        env = {
            "OPENAI_BASE_URL": stub.base_url,
            "CHECKPOINT_DATABASE_URL": postgres_database,
            "WORKERS": str(WORKERS),
            "LOG_LEVEL": "WARNING",
        }
        service = spawn_service(env, tmp_path)
        try:
            # Each worker imports and builds the agent on its own.
            wait_until_ready(service, timeout=READY_TIMEOUT * WORKERS)
            assert len(worker_pids(service.process.pid)) == WORKERS
            questions = 2 * WORKERS * 4

            def ask(n: int) -> httpx.Response:
                with httpx.Client(timeout=60) as client:
                    return client.post(
                        f"{service.base_url}{ASK}",
                        json={"question": f"问题 {n}", "thread_id": f"w{n}:20250101000000000"},
                    )

            with ThreadPoolExecutor(questions) as pool:
                answers = list(pool.map(ask, range(questions)))
            assert [a.status_code for a in answers] == [200] * questions
            assert len({a.json()["data"]["conversation_id"] for a in answers}) == questions
        finally:
            stop_process(service.process, timeout=60)
        assert service.process.returncode == 0, service.log_tail()

"""The audit and the quotas across two service processes on one PostgreSQL database."""

from __future__ import annotations

import asyncio
import hashlib
import json
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import psycopg

from tests.support.held_runs import service_env, start_service
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub
from tests.support.service_process import ServiceProcess, stop_process

ASK = "/api/v0/ask_react_agent"
KEY = "audit-test-key-0123456789"
KEY_ID = "key-" + hashlib.sha256(KEY.encode()).hexdigest()[:12]
HEADERS = {"Authorization": f"Bearer {KEY}"}


async def start_workers(
    stack: AsyncExitStack, stub: OpenAIStub, database: str, tmp_path: Path, **extra: str
) -> list[ServiceProcess]:
    """Start two service processes sharing `database` (conversations, audit, quotas)."""
    env = service_env(stub, database, API_KEYS=KEY, **extra)
    workers = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        worker = await start_service(env, tmp_path / name)
        stack.callback(stop_process, worker.process)
        workers.append(worker)
    return workers


def stored_records(database: str) -> list[dict]:
    with psycopg.connect(database) as connection:
        cursor = connection.cursor(row_factory=psycopg.rows.dict_row)
        return cursor.execute("SELECT * FROM audit_records").fetchall()


async def test_a_thousand_questions_over_two_workers_leave_exactly_their_records(
    stub, postgres_database, tmp_path
):
    questions = 1000
    async with AsyncExitStack() as stack:
        workers = await start_workers(
            stack,
            stub,
            postgres_database,
            tmp_path,
            AUDIT="on",
            LOG_LEVEL="ERROR",
            # A burst of 500 new conversations per worker queues for pooled connections.
            POSTGRES_CONNECT_TIMEOUT=str(questions),
        )
        http = await stack.enter_async_context(
            httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=questions))
        )

        async def ask(n: int) -> httpx.Response:
            return await http.post(
                f"{workers[n % 2].base_url}{ASK}",
                json={"question": f"q{n}", "user_id": f"u{n % 7}"},
                headers=HEADERS,
            )

        answers = await asyncio.gather(*(ask(n) for n in range(questions)))
        failed = [(a.status_code, a.text[:300]) for a in answers if a.status_code != 200]
        assert not failed, failed[:3]
        for worker in workers:  # SIGTERM: each drains, then writes what it has queued
            await asyncio.to_thread(stop_process, worker.process)
            assert worker.process.returncode == 0, worker.log_tail()
    records = await asyncio.to_thread(stored_records, postgres_database)
    assert len(records) == questions
    by_question = {record["question"]: record for record in records}
    assert len(by_question) == questions
    for n, answered in enumerate(answers):
        record = by_question[f"q{n}"]
        data = answered.json()["data"]
        assert record["user_id"] == f"u{n % 7}" and record["key_id"] == KEY_ID
        assert record["thread_id"] == data["conversation_id"]
        assert record["model_sql"] == record["run_sql"] == DEFAULT_SALES_SQL
        assert record["outcome"] == "ok" and record["reason"] is None
        assert record["row_count"] == data["records"]["total_row_count"]
        assert json.loads(record["tables"]) == ["orders", "regions", "stores"]
        assert record["duration_ms"] >= 0 and record["run_id"] and record["at"]
    assert KEY not in json.dumps(records, default=str)


async def test_shutdown_writes_the_records_still_queued(stub, postgres_database, tmp_path):
    async with AsyncExitStack() as stack:
        # Nothing is written until shutdown: the writer waits a minute or 2,000 records.
        workers = await start_workers(
            stack,
            stub,
            postgres_database,
            tmp_path,
            AUDIT="on",
            AUDIT_FLUSH_SECONDS="60",
            AUDIT_BATCH_SIZE="2000",
        )
        async with httpx.AsyncClient(timeout=60) as http:
            for n in range(6):
                response = await http.post(
                    f"{workers[n % 2].base_url}{ASK}",
                    json={"question": f"s{n}"},
                    headers=HEADERS,
                )
                assert response.status_code == 200, response.text
        assert await asyncio.to_thread(stored_records, postgres_database) == []
        for worker in workers:
            await asyncio.to_thread(stop_process, worker.process)
    records = await asyncio.to_thread(stored_records, postgres_database)
    assert sorted(record["question"] for record in records) == [f"s{n}" for n in range(6)]


async def test_a_second_worker_counts_the_questions_and_tokens_of_the_first(
    stub, postgres_database, tmp_path
):
    async with AsyncExitStack() as stack:
        workers = await start_workers(
            stack, stub, postgres_database, tmp_path, QUOTA_QUESTIONS_PER_MINUTE="2"
        )
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=60, headers=HEADERS))

        async def ask(worker: ServiceProcess, user: str) -> httpx.Response:
            body = {"question": "q", "user_id": user}
            return await http.post(f"{worker.base_url}{ASK}", json=body)

        async def usage(worker: ServiceProcess, user: str) -> dict:
            response = await http.get(f"{worker.base_url}/api/v0/usage", params={"user_id": user})
            return response.json()["data"]

        for attempt in range(2):  # once more if the clock's minute ended in between
            user = f"quota{attempt}"
            minute = (await usage(workers[1], user))["resets"]["questions_per_minute"]
            answers = [await ask(worker, user) for worker in workers]
            refused = await ask(workers[1], user)
            seen = await usage(workers[0], user)
            if seen["resets"]["questions_per_minute"] == minute:
                break
        assert [a.status_code for a in answers] == [200, 200]
        assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 60
        assert refused.json()["data"]["error_type"] == "QUOTA_EXCEEDED"
        assert seen["questions_this_minute"] == 2
        # Each worker adds its runs' model tokens to the shared day in the background.
        spent = sum(a.json()["data"]["react_agent_meta"]["usage"]["total_tokens"] for a in answers)
        assert spent > 0
        deadline = asyncio.get_running_loop().time() + 10
        while (tokens := (await usage(workers[1], user))["tokens_today"]) < spent:
            assert asyncio.get_running_loop().time() < deadline, (tokens, spent)
            await asyncio.sleep(0.05)
        assert tokens == spent

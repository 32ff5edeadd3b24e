"""Two service processes on two ports sharing one PostgreSQL: one conversation, one run."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from pathlib import Path

import httpx

from react_agent.sample_data.load_postgres import load_into_postgres
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall
from tests.support.service_process import start_service_process

ASK = "/api/v0/ask_react_agent"
THREAD = "wang1:20250101000000042"


def test_two_processes_share_conversations_status_and_thread_claims(
    postgres_database: str, tmp_path: Path
):
    load_into_postgres(postgres_database)  # the data lives in Postgres too
    release = threading.Event()
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with ExitStack() as stack:
        stub = stack.enter_context(OpenAIStub())
        env = {
            "OPENAI_BASE_URL": stub.base_url,
            "CHECKPOINT_DATABASE_URL": postgres_database,
            "DATA_DATABASE_URL": postgres_database,
        }
        first = stack.enter_context(start_service_process(env, tmp_path / "a"))
        second = stack.enter_context(start_service_process(env, tmp_path / "b"))
        client = stack.enter_context(httpx.Client(timeout=30))

        stub.script(
            Reply(tool_calls=[ToolCall("run_sql", {"sql": "SELECT COUNT(*) AS n FROM stores"})]),
            Reply(text="共有 32 家门店。"),
        )
        started = client.post(f"{first}{ASK}", json={"question": "有几家门店", "thread_id": THREAD})
        assert started.status_code == 200, started.text
        assert started.json()["data"]["records"]["rows"] == [{"n": 32}]

        # The conversation continues on the other process; its model call is held open.
        stub.script(Reply(text="您刚才问的是门店数量。", wait_for=release))
        stack.callback(release.set)
        with (
            httpx.Client(timeout=30) as streaming,
            streaming.stream(
                "POST",
                f"{second}/api/v0/ask_react_agent_stream",
                json={"question": "我刚才问了什么", "thread_id": THREAD},
            ) as stream,
        ):
            lines = stream.iter_lines()
            while '"node":"trim_messages"' not in next(lines):
                pass
            # While it runs there, both processes see it running, and neither starts another.
            for base in (first, second):
                status = client.get(
                    f"{base}/api/v0/react/status/{THREAD}", params={"user_id": "wang1"}
                )
                assert status.json()["data"]["status"] == "running"
                busy = client.post(f"{base}{ASK}", json={"question": "again", "thread_id": THREAD})
                assert (
                    busy.status_code == 409 and busy.json()["data"]["error_type"] == "THREAD_BUSY"
                )
            release.set()
            body = "\n".join(lines)
        assert '"type":"completed"' in body and "门店数量" in body

        # The held call saw the first question, asked on the other process.
        held_request = stub.requests[-1]
        assert {"role": "user", "content": "有几家门店"} in held_request["messages"]
        for base in (first, second):
            conversation = client.get(
                f"{base}/api/v0/react/conversations/{THREAD}", params={"user_id": "wang1"}
            ).json()["data"]
            assert [m["content"] for m in conversation["messages"] if m["role"] == "human"] == [
                "有几家门店",
                "我刚才问了什么",
            ]
            status = client.get(f"{base}/api/v0/react/status/{THREAD}", params={"user_id": "wang1"})
            assert status.json()["data"]["status"] == "completed"

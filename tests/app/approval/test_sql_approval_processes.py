"""SQL approval across processes, through ChatOpenAI on the stub server (restart, scale-out)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import httpx

from react_agent.sample_data.load_postgres import load_into_postgres
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall
from tests.support.service_process import start_service_process

ASK = "/api/v0/ask_react_agent"
STREAM = "/api/v0/ask_react_agent_stream"
THREAD = "zhao:approval-restart"
STORES_SQL = "SELECT COUNT(*) AS n FROM stores"


def script_query_then_answer(stub: OpenAIStub) -> None:
    """Script the model to ask for one query, then answer from its rows."""
    stub.script(
        Reply(tool_calls=[ToolCall("run_sql", {"sql": STORES_SQL})]),
        Reply(text="共有 32 家门店。"),
    )


def ask_for_approval(client: httpx.Client, base: str) -> dict:
    """Ask with approve_sql on the sync endpoint; return the waiting answer's data."""
    response = client.post(
        f"{base}{ASK}", json={"question": "有几家门店", "thread_id": THREAD, "approve_sql": True}
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["status"] == "awaiting_approval" and data["sql"] == STORES_SQL
    return data


def test_a_pending_approval_survives_a_restart_and_resumes_on_the_new_process(
    checkpoint_url: str, tmp_path: Path
):
    with OpenAIStub() as stub, httpx.Client(timeout=30) as client:
        script_query_then_answer(stub)
        env = {"OPENAI_BASE_URL": stub.base_url, "CHECKPOINT_DATABASE_URL": checkpoint_url}
        with start_service_process(env, tmp_path) as first:
            waiting = ask_for_approval(client, first)
        assert len(stub.requests) == 1  # the query waited: the model was asked once

        with start_service_process(env, tmp_path) as second:
            status = client.get(f"{second}/api/v0/react/status/{THREAD}").json()["data"]
            assert status["status"] == "awaiting_approval"
            assert status["approval"]["interrupt_id"] == waiting["interrupt_id"]
            with client.stream(
                "POST",
                f"{second}{STREAM}",
                json={
                    "thread_id": THREAD,
                    "resume": {"interrupt_id": waiting["interrupt_id"], "action": "approve"},
                },
            ) as stream:
                body = "\n".join(stream.iter_lines())

    assert '"type":"completed"' in body and "32 家门店" in body
    assert '"rows":[{"n":32}]' in body
    tool_message = stub.requests[-1]["messages"][-1]
    assert tool_message["role"] == "tool" and "1 row(s)" in tool_message["content"]


def test_a_second_process_on_the_same_postgres_resumes_and_the_first_sees_it_stale(
    postgres_database: str, tmp_path: Path
):
    load_into_postgres(postgres_database)
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
            Reply(tool_calls=[ToolCall("run_sql", {"sql": STORES_SQL})]),
            Reply(tool_calls=[ToolCall("run_sql", {"sql": "SELECT COUNT(*) AS n FROM regions"})]),
            Reply(text="7 个地区。"),
        )
        waiting = ask_for_approval(client, first)

        rejected = client.post(
            f"{second}{ASK}",
            json={
                "thread_id": THREAD,
                "resume": {
                    "interrupt_id": waiting["interrupt_id"],
                    "action": "reject",
                    "comment": "数地区",
                },
            },
        ).json()["data"]
        stale = client.post(
            f"{first}{ASK}",
            json={
                "thread_id": THREAD,
                "resume": {"interrupt_id": waiting["interrupt_id"], "action": "approve"},
            },
        )
        done = client.post(
            f"{first}{ASK}",
            json={
                "thread_id": THREAD,
                "resume": {"interrupt_id": rejected["interrupt_id"], "action": "approve"},
            },
        )

    assert rejected["status"] == "awaiting_approval"
    assert rejected["sql"] == "SELECT COUNT(*) AS n FROM regions"
    assert stale.status_code == 409 and stale.json()["data"]["error_type"] == "STALE_INTERRUPT"
    assert done.status_code == 200 and done.json()["data"]["records"]["rows"] == [{"n": 7}]
    rejection = stub.requests[1]["messages"][-1]
    assert rejection["role"] == "tool" and "rejected" in rejection["content"]
    assert "数地区" in rejection["content"]


def test_a_clarifying_question_survives_a_restart_and_is_answered_on_a_second_worker(
    postgres_database: str, tmp_path: Path
):
    load_into_postgres(postgres_database)
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
    thread = "zhao:clarify-restart"
    with OpenAIStub() as stub, httpx.Client(timeout=30) as client:
        stub.script(
            Reply(tool_calls=[ToolCall("ask_user", {"question": "哪一年？", "options": ["2024"]})]),
            Reply(text="按 2024 年统计。"),
        )
        env = {
            "OPENAI_BASE_URL": stub.base_url,
            "CHECKPOINT_DATABASE_URL": postgres_database,
            "DATA_DATABASE_URL": postgres_database,
            "CLARIFY": "on",
        }
        with start_service_process(env, tmp_path / "a") as first:
            paused = client.post(
                f"{first}{ASK}", json={"question": "销售额是多少", "thread_id": thread}
            ).json()["data"]
        assert paused["status"] == "awaiting_clarification" and paused["options"] == ["2024"]

        with (
            start_service_process(env, tmp_path / "b") as second,
            start_service_process(env, tmp_path / "c") as third,
        ):
            status = client.get(f"{third}/api/v0/react/status/{thread}").json()["data"]
            answered = client.post(
                f"{second}{ASK}",
                json={
                    "thread_id": thread,
                    "resume": {
                        "interrupt_id": paused["interrupt_id"],
                        "action": "answer",
                        "text": "2024",
                    },
                },
            ).json()["data"]

    assert status["status"] == "awaiting_clarification"
    assert status["approval"]["interrupt_id"] == paused["interrupt_id"]
    assert answered["response"] == "按 2024 年统计。"
    tool_message = stub.requests[-1]["messages"][-1]
    assert tool_message == {
        "role": "tool",
        "content": "The person answered: 2024",
        "tool_call_id": tool_message["tool_call_id"],
    }

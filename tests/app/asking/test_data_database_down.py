"""A data database that is down ends a question as 503 DATABASE_UNAVAILABLE on every surface.

Served over real HTTP with the real ChatOpenAI against the suite's OpenAI-compatible stub,
whose default policy calls run_sql for a new question. The database is really down: a
PostgreSQL or MariaDB URL on a port nothing listens on, or a SQLite file removed after
the service opened it. The question ends at the failed tool call, with no second model
call: the model cannot fix an outage, so it is not fed retries it cannot win; the client
is told whether a retry can help (`can_retry`).
"""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openai
import pytest

from config import Settings
from tests.support.live_server import ServiceClient, running_service
from tests.support.mcp_client import http_session
from tests.support.model_requests import unanswered_tool_call_ids, user_questions
from tests.support.openai_stub import OpenAIStub
from tests.support.postgres import unreachable_postgres_url
from tests.support.sse import collect_stream

QUESTION = "每个地区的销售额是多少"
MODEL = "sql-react-agent"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _sample_copy(tmp_path: Path) -> Path:
    from react_agent.sample_data import SAMPLE_DB_PATH

    copy = tmp_path / "sales.db"
    shutil.copyfile(SAMPLE_DB_PATH, copy)
    return copy


DOWN: dict[str, tuple[Callable[[Path], str], bool]] = {
    # name: (the data database's URL, whether a retry may help)
    "postgres_closed_port": (lambda _: unreachable_postgres_url(), True),
    "mariadb_closed_port": (lambda _: f"mysql://root@127.0.0.1:{_closed_port()}/test", True),
    # Removed after start-up (below): like a missing file at start, an operator must act.
    "sqlite_file_removed": (lambda tmp: f"sqlite:///{_sample_copy(tmp)}", False),
}


@pytest.fixture(params=sorted(DOWN))
def down(request: pytest.FixtureRequest, stub_settings: Settings, tmp_path: Path):
    """Return (settings whose data database is down once served, can_retry expected)."""
    make_url, can_retry = DOWN[request.param]
    settings = stub_settings.model_copy(
        update={"data_database_url": make_url(tmp_path), "postgres_connect_timeout": 0.5}
    )
    return request.param, settings, can_retry


def _take_down(name: str, settings: Settings) -> None:
    if name == "sqlite_file_removed":
        Path(settings.data_database_url.removeprefix("sqlite:///")).unlink()


def _assert_unavailable(data: dict[str, Any], can_retry: bool) -> None:
    assert data["error_type"] == "DATABASE_UNAVAILABLE", data
    assert data["can_retry"] is can_retry


async def _sync(service: ServiceClient) -> tuple[int, dict[str, Any]]:
    status, body = await service.ask(question=QUESTION, user_id="wang1")
    return status, body["data"]


async def _stream(service: ServiceClient) -> tuple[int, dict[str, Any]]:
    events = await collect_stream(service.http, json={"question": QUESTION, "user_id": "wang1"})
    assert [e.type for e in events][-2:] == ["error", "end"], [e.type for e in events]
    return events[-2].envelope["code"], events[-2].data


def _openai_client(service: ServiceClient) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=f"{service.base_url}/v1", api_key="unused", max_retries=0)


async def _openai(service: ServiceClient) -> tuple[int, dict[str, Any]]:
    with pytest.raises(openai.APIStatusError) as failed:
        await _openai_client(service).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": QUESTION}]
        )
    error = failed.value.body
    assert error["type"] == "server_error", error
    return failed.value.status_code, _as_envelope_data(error)


async def _openai_stream(service: ServiceClient) -> tuple[int | None, dict[str, Any]]:
    # A stream has begun (200) when the run fails: the error is its last data event, and
    # its code is all there is to tell the status by.
    response = await service.http.post(
        "/v1/chat/completions",
        json={"model": MODEL, "messages": [{"role": "user", "content": QUESTION}], "stream": True},
    )
    events = [
        json.loads(line.removeprefix("data: "))
        for line in response.text.splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]
    assert response.status_code == 200
    error = events[-1]["error"]
    assert error["type"] == "server_error", error
    return None, _as_envelope_data(error)


def _as_envelope_data(error: dict[str, Any]) -> dict[str, Any]:
    # OpenAI's format has no can_retry: the 503 status says a retry may help.
    return {"error_type": error["code"].upper(), "error": error["message"], "can_retry": None}


async def _mcp(service: ServiceClient) -> tuple[int | None, dict[str, Any]]:
    async with http_session(service.base_url) as session:
        result = await session.call_tool("ask_data", {"question": QUESTION})
    assert result.is_error, result.content
    # The MCP SDK puts its own words before the tool's error text, which starts with the code.
    text = result.content[0].text.removeprefix("Error executing tool ask_data: ")
    code = text.partition(":")[0]
    return None, {"error_type": code, "error": text, "can_retry": None}  # no status in MCP


SURFACES = {
    "sync": _sync,
    "stream": _stream,
    "openai": _openai,
    "openai_stream": _openai_stream,
    "mcp": _mcp,
}


@pytest.mark.parametrize("surface", sorted(SURFACES))
async def test_a_data_database_that_is_down_answers_503_database_unavailable(
    down, stub: OpenAIStub, surface: str
):
    name, settings, can_retry = down
    async with running_service(settings) as service:
        _take_down(name, settings)
        status, data = await SURFACES[surface](service)

    assert status in (503, None), data  # None: the surface carries no status of its own
    assert data["error_type"] == "DATABASE_UNAVAILABLE", data
    if data["can_retry"] is not None:  # the envelope's surfaces say it in a field
        _assert_unavailable(data, can_retry)
    assert "AttributeError" not in data["error"] and "AGENT_FAILED" not in data["error"]
    # The model asked for run_sql once; the outage ended the question there.
    assert len(stub.requests) == 1
    assert [m["role"] for m in stub.requests[0]["messages"]][-1] == "user"


async def test_the_thread_answers_again_once_the_database_is_back(stub_settings, stub, tmp_path):
    # The question that met the outage left a tool call without a result in the thread;
    # the next question must still send the model a history it accepts.
    path = _sample_copy(tmp_path)
    settings = stub_settings.model_copy(update={"data_database_url": f"sqlite:///{path}"})
    kept = tmp_path / "kept.db"
    async with running_service(settings) as service:
        shutil.move(path, kept)
        status, body = await service.ask(question=QUESTION, thread_id="wang1:t1")
        assert status == 503 and body["data"]["error_type"] == "DATABASE_UNAVAILABLE"
        shutil.move(kept, path)
        status, body = await service.ask(question=QUESTION, thread_id="wang1:t1")

    assert status == 200, body
    assert body["data"]["records"]["total_row_count"] == 7
    for request in stub.requests[1:]:
        assert unanswered_tool_call_ids(request) == []
        assert user_questions(request) == [QUESTION, QUESTION]

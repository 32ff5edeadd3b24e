"""Model faults from the stub LLM: each ends in a clear error or a corrected answer.

The service runs in-process over real HTTP with the real ChatOpenAI talking to the suite's
OpenAI-compatible stub. Retries are off (LLM_MAX_RETRIES=0) unless a test says otherwise,
so each fault reaches the service instead of being hidden by the openai SDK's retry.
Every fault is tried on the sync endpoint and on the stream (with `stream_tokens`, so the
model's answer is itself streamed), and the next question on the same thread must work.

Nothing here measures time. A fault that needs no waiting meets an LLM_TIMEOUT longer than
the hang guard, so a service that waited for it fails the test instead of passing late; a
fault only the call bound can end (a model that never answers, stalls or drips) meets a
short LLM_TIMEOUT, and the test checks that it ended as LLM_TIMEOUT and that the service
closed the model's request (the stub sees its client leave).
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from config import localize
from tests.support.live_server import ServiceClient, running_service
from tests.support.model_requests import tool_results, unanswered_tool_call_ids, user_questions
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply, ToolCall
from tests.support.sse import collect_stream

HANG_GUARD = 30.0
"""Seconds after which a question or a wait that has not ended fails the test; not a measure."""

LONG_LLM_TIMEOUT = 4 * HANG_GUARD
"""LLM_TIMEOUT of the tests where the call bound must not be what ends a question."""

SHORT_LLM_TIMEOUT = 1.0
"""LLM_TIMEOUT where the call bound must end a question: a model that never answers waits
for it. The stub answers the follow-up question's calls at once, far within it."""

REGION_SQL = "SELECT region_name FROM regions ORDER BY region_name"

TRANSPORTS = ["sync", "stream"]


@dataclass
class Outcome:
    """How one question ended, on either endpoint."""

    code: int
    """HTTP status (sync) or the envelope code of the `completed`/`error` event (stream)."""
    envelope: dict[str, Any]
    events: list[Any] = field(default_factory=list)

    @property
    def data(self) -> dict[str, Any]:
        """Return the envelope's data."""
        return self.envelope["data"]


@pytest.fixture
def llm_settings(stub_settings):
    """Return the stub-LLM settings with an LLM_TIMEOUT beyond the hang guard, no resume grace."""
    return stub_settings.model_copy(
        update={"llm_timeout": LONG_LLM_TIMEOUT, "stream_resume_grace": 0.0}
    )


@pytest.fixture
def bounded_settings(llm_settings):
    """Return the stub-LLM settings with a short LLM_TIMEOUT, for faults only it can end."""
    return llm_settings.model_copy(update={"llm_timeout": SHORT_LLM_TIMEOUT})


async def assert_model_request_closed(stub: OpenAIStub, index: int) -> None:
    """Assert the service closed model request `index` before its answer ended."""
    left = await asyncio.to_thread(stub.wait_until_cancelled, index, HANG_GUARD)
    assert left, f"the service left model request {index} open ({stub.cancelled=})"


def new_thread() -> str:
    return f"faults:{uuid.uuid4().hex[:12]}"


async def ask(
    service: ServiceClient, transport: str, question: str, thread_id: str, **extra: Any
) -> Outcome:
    """Ask on one endpoint and return how it ended.

    A stream must end with exactly one `completed` or `error` event, then `end`.
    """
    body = {"question": question, "thread_id": thread_id, **extra}
    async with asyncio.timeout(HANG_GUARD):  # a hang fails the test, not stalls the suite
        if transport == "sync":
            response = await service.http.post("/api/v0/ask_react_agent", json=body)
            return Outcome(response.status_code, response.json())
        events = await collect_stream(service.http, json={**body, "stream_tokens": True})
    types = [event.type for event in events]
    assert types[0] == "started" and types[-1] == "end", types
    finals = [event for event in events if event.type in ("completed", "error")]
    assert len(finals) == 1 and events.index(finals[0]) == len(events) - 2, types
    return Outcome(finals[0].envelope["code"], finals[0].envelope, events)


async def assert_next_question_works(
    service: ServiceClient, stub: OpenAIStub, transport: str, thread_id: str, earlier: str
) -> None:
    """Ask again on the thread (the stub's default policy: run_sql, then an answer)."""
    seen = len(stub.requests)
    outcome = await ask(service, transport, "每个地区的销售额是多少", thread_id)
    assert outcome.code == 200, outcome.envelope
    assert outcome.data["sql"] == DEFAULT_SALES_SQL
    assert outcome.data["records"]["total_row_count"] == 7
    first_call = stub.requests[seen]
    assert user_questions(first_call) == [earlier, "每个地区的销售额是多少"]
    for request in stub.requests[seen:]:
        assert unanswered_tool_call_ids(request) == []


@dataclass(frozen=True)
class Fault:
    """A model fault, and how a question that meets it must end."""

    reply: Callable[[], Reply]
    status: int
    error_type: str
    can_retry: bool
    bounded: bool = False
    """Only the call bound (LLM_TIMEOUT) can end it: the model never finishes by itself."""
    transports: tuple[str, ...] = tuple(TRANSPORTS)


FAULTS = {
    "server_error_500": Fault(lambda: Reply(status=500), 503, "LLM_UNAVAILABLE", True),
    "bad_gateway_502": Fault(lambda: Reply(status=502), 503, "LLM_UNAVAILABLE", True),
    # Without retries the Retry-After is not waited for; the client is told to retry.
    "rate_limited_429": Fault(
        lambda: Reply(status=429, headers={"Retry-After": "30"}), 503, "LLM_RATE_LIMITED", True
    ),
    # The API promises can_retry with every 503, though only a fixed setting helps here.
    "rejected_key_401": Fault(lambda: Reply(status=401), 503, "LLM_AUTH_FAILED", True),
    "bad_request_400": Fault(lambda: Reply(status=400), 503, "LLM_BAD_REQUEST", True),
    "never_answers": Fault(
        lambda: Reply(hang=True),
        504,
        "LLM_TIMEOUT",
        True,
        bounded=True,
    ),
    # Streamed: cut after the role chunk and two text deltas; sync: cut halfway through
    # the JSON body.
    "dropped_mid_answer": Fault(
        lambda: Reply(text="华东地区的销售额最高，其次是华南。", drop_after_chunks=3),
        503,
        "LLM_UNAVAILABLE",
        True,
    ),
    # Two deltas arrive, then nothing (an event nobody sets): the read timeout ends the
    # call. Only a streamed answer can stall halfway.
    "stalls_mid_answer": Fault(
        lambda: Reply(text="华东地区的销售额最高。", pause_after=(3, threading.Event())),
        504,
        "LLM_TIMEOUT",
        True,
        bounded=True,
        transports=("stream",),
    ),
    # Each delta comes well within the read timeout, but the whole answer (a role chunk, 11
    # deltas, the end, the usage and [DONE], a quarter of LLM_TIMEOUT apart) takes several
    # times LLM_TIMEOUT: LLM_TIMEOUT bounds the whole call, not each chunk. A bound on each
    # chunk only would let the answer finish (200); a slow machine only makes it longer.
    "drips_past_the_call_bound": Fault(
        lambda: Reply(text="华东地区的销售额最高。" * 4, chunk_delay=SHORT_LLM_TIMEOUT / 4),
        504,
        "LLM_TIMEOUT",
        True,
        bounded=True,
        transports=("stream",),
    ),
    # The server cut the answer at max_tokens (LLM_MAX_TOKENS): told in words (a 503, so
    # can_retry as the API promises: a sampled model may do better the next time).
    "cut_at_max_tokens": Fault(
        lambda: Reply(text="华东地区的销售额最高，其次", finish_reason="length"),
        503,
        "LLM_ANSWER_TOO_LONG",
        True,
    ),
    # A small model looping on one sentence until its length bound.
    "repeats_itself": Fault(
        lambda: Reply(text="华东地区的销售额最高。" * 400, chunk_size=40),
        503,
        "LLM_REPEATING",
        True,
    ),
}


@pytest.mark.parametrize(
    ("fault_name", "transport"),
    [(name, transport) for name, fault in FAULTS.items() for transport in fault.transports],
)
async def test_model_fault_ends_with_a_clear_error_and_the_thread_works_after(
    llm_settings, bounded_settings, stub, fault_name, transport
):
    fault = FAULTS[fault_name]
    stub.script(fault.reply())
    thread_id = new_thread()
    async with running_service(bounded_settings if fault.bounded else llm_settings) as service:
        outcome = await ask(service, transport, "第一个问题", thread_id)

        assert outcome.code == fault.status, outcome.envelope
        assert outcome.envelope["success"] is False
        assert outcome.data["error_type"] == fault.error_type
        assert outcome.data["can_retry"] is fault.can_retry
        assert outcome.data["conversation_id"] == thread_id
        assert outcome.envelope["message"] == localize(fault.error_type, "zh-CN")
        if transport == "sync":
            assert outcome.envelope["error"] == outcome.data["error"]  # the legacy field
        else:
            assert outcome.data["type"] == "error"
        assert len(stub.requests) == 1  # no retry behind the service's back
        if fault.bounded:  # the bound cut the model's request, not left it open
            await assert_model_request_closed(stub, 0)

        await assert_next_question_works(service, stub, transport, thread_id, "第一个问题")


async def test_stream_keeps_the_tokens_sent_before_the_model_connection_dropped(llm_settings, stub):
    stub.script(Reply(text="华东地区的销售额最高，其次是华南。", drop_after_chunks=3))
    async with running_service(llm_settings) as service:
        outcome = await ask(service, "stream", "q", new_thread())
    tokens = "".join(e.data["content"] for e in outcome.events if e.type == "token")
    assert tokens == "华东地区的销售额"  # the two deltas of four characters before the cut
    assert outcome.data["error_type"] == "LLM_UNAVAILABLE"


async def test_a_repeating_answer_is_stopped_early_and_max_tokens_is_sent(llm_settings, stub):
    looping = "华东地区的销售额最高。" * 2000  # 22,000 characters if it ran to the end
    stub.script(Reply(text=looping))
    async with running_service(llm_settings) as service:
        outcome = await ask(service, "stream", "q", new_thread())
    assert outcome.data["error_type"] == "LLM_REPEATING"
    tokens = "".join(e.data["content"] for e in outcome.events if e.type == "token")
    assert looping.startswith(tokens)
    assert len(tokens) < 1000  # stopped once the loop was plain, not at the end
    assert stub.requests[0]["max_completion_tokens"] == llm_settings.llm_max_tokens
    assert stub.requests[0]["max_tokens"] == llm_settings.llm_max_tokens  # not OpenAI's host


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_429_with_retry_after_is_retried_and_the_question_answered(
    llm_settings, stub, transport
):
    stub.script(Reply(status=429, headers={"Retry-After": "1"}))
    retrying = llm_settings.model_copy(update={"llm_max_retries": 2})
    async with running_service(retrying) as service:
        outcome = await ask(service, transport, "q", new_thread())
    assert outcome.code == 200, outcome.envelope
    assert outcome.data["sql"] == DEFAULT_SALES_SQL
    assert len(stub.requests) == 3  # the 429, then run_sql, then the answer


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_retry_after_longer_than_llm_timeout_is_waited_for_until_the_bound(
    bounded_settings, stub, transport
):
    # The SDK's own backoff would retry within half a second, well inside LLM_TIMEOUT, and
    # get an answer; a second request never comes only if the Retry-After is honoured, and
    # the question ends only because LLM_TIMEOUT bounds the call, the retry's wait included.
    stub.script(Reply(status=429, headers={"Retry-After": "30"}))
    retrying = bounded_settings.model_copy(update={"llm_max_retries": 2})
    async with running_service(retrying) as service:
        outcome = await ask(service, transport, "q", new_thread())
    assert outcome.code == 504, outcome.envelope
    assert outcome.data["error_type"] == "LLM_TIMEOUT"
    assert len(stub.requests) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("bad_call", "error_words"),
    [
        (ToolCall("run_sql", raw_arguments='{"sql": SELECT region_name FROM regions}'), "JSON"),
        (ToolCall("run_sql", raw_arguments="run this: SELECT 1"), "JSON"),
        (ToolCall("drop_database", {"name": "sales"}), "not a valid tool"),
    ],
    ids=["malformed_json", "not_json_at_all", "unknown_tool"],
)
async def test_bad_tool_call_gets_a_tool_error_and_the_model_corrects_itself(
    llm_settings, stub, transport, bad_call, error_words
):
    stub.script(
        Reply(tool_calls=[bad_call]),
        Reply(tool_calls=[ToolCall("run_sql", {"sql": REGION_SQL})]),
        Reply(text="共有七个地区。"),
    )
    thread_id = new_thread()
    async with running_service(llm_settings) as service:
        outcome = await ask(service, transport, "有哪些地区", thread_id)

        assert outcome.code == 200, outcome.envelope
        assert outcome.data["response"] == "共有七个地区。"
        assert outcome.data["sql"] == REGION_SQL
        assert outcome.data["records"]["total_row_count"] == 7
        _, second, third = stub.requests
        # The model saw its bad call answered with an error, and nothing was left open.
        assert len(tool_results(second)) == 1 and error_words in tool_results(second)[0]
        assert tool_results(second)[0].startswith("Error")
        assert unanswered_tool_call_ids(second) == [] == unanswered_tool_call_ids(third)
        assert outcome.data["react_agent_meta"]["sql_execution_count"] == 1

        await assert_next_question_works(service, stub, transport, thread_id, "有哪些地区")


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("lang", ["zh-CN", "en-US"])
async def test_empty_answer_becomes_a_clear_localized_answer_kept_in_the_history(
    llm_settings, stub, transport, lang
):
    stub.script(Reply(text=""))
    thread_id = new_thread()
    async with running_service(llm_settings) as service:
        outcome = await ask(service, transport, "你好", thread_id, lang=lang)

        assert outcome.code == 200, outcome.envelope
        assert outcome.data["response"] == localize("EMPTY_ANSWER", lang)
        conversation = await service.http.get(
            f"/api/v0/react/conversations/{thread_id}", params={"user_id": "faults"}
        )
        messages = conversation.json()["data"]["messages"]
        assert [(m["role"], m["content"]) for m in messages] == [
            ("human", "你好"),
            ("ai", localize("EMPTY_ANSWER", lang)),
        ]

        await assert_next_question_works(service, stub, transport, thread_id, "你好")
    # The model is never sent an empty assistant message.
    assert all(
        m.get("content") or m.get("tool_calls")
        for m in stub.requests[-2]["messages"]
        if m.get("role") == "assistant"
    )

"""Tool calls as a server sends them, read by the service's ChatOpenAI, then vetted.

The corpus over HTTP is tests/app/asking/test_tool_call_mistakes.py; these are the shapes
the suite's stub cannot send (calls without ids, ids used twice), read by the real
langchain-openai code from the JSON a server answers.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from react_agent.graph.llm import ServiceChatOpenAI
from react_agent.graph.nodes.tool_calls import MAX_ECHO_CHARS, echo, vet_model_calls


def completion(*calls: dict[str, Any]) -> dict[str, Any]:
    """Return a chat completion whose one message holds these raw tool calls."""
    message = {"role": "assistant", "content": None, "tool_calls": list(calls)}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }


def raw_call(arguments: str, name: str = "run_sql", id: str | None = "c1") -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if id is not None:
        call["id"] = id
    return call


def read(response: dict[str, Any]) -> AIMessage:
    model = ServiceChatOpenAI(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")
    message = model._create_chat_result(response).generations[0].message
    assert isinstance(message, AIMessage)
    message.id = "m1"
    return message


@pytest.mark.parametrize(
    "arguments",
    [json.dumps(["SELECT 1"]), json.dumps(7), json.dumps(True), json.dumps("SELECT 1")],
    ids=["list", "number", "boolean", "string"],
)
def test_arguments_that_are_json_but_no_object_are_answered_not_a_crash(arguments):
    message = read(completion(raw_call(arguments)))

    vetted, answers = vet_model_calls(message)

    assert vetted.tool_calls == [] and [c["args"] for c in vetted.invalid_tool_calls] == ["{}"]
    [answer] = answers
    assert answer.status == "error" and answer.tool_call_id == "c1"
    assert "one JSON object" in answer.content and arguments in answer.content


def test_a_json_string_holding_an_object_is_decoded_once_and_runs():
    arguments = json.dumps(json.dumps({"sql": "SELECT 1;  "}))
    vetted, answers = vet_model_calls(read(completion(raw_call(arguments))))

    assert answers == []
    assert [(c["name"], c["args"], c["id"]) for c in vetted.tool_calls] == [
        ("run_sql", {"sql": "SELECT 1"}, "c1")
    ]


def test_calls_without_ids_or_with_the_same_id_each_get_an_id_of_their_own():
    message = read(
        completion(
            raw_call('{"sql": "SELECT 1"}', id=None),
            raw_call('{"sql": "SELECT 2"}', id="same"),
            raw_call('{"sql": "SELECT 3"}', id="same"),
            raw_call('{"sql": ', id=None),
        )
    )

    vetted, answers = vet_model_calls(message)

    ids = [c["id"] for c in [*vetted.tool_calls, *vetted.invalid_tool_calls]]
    assert len(ids) == 4 and len(set(ids)) == 4 and all(ids)
    assert "same" in ids
    [answer] = answers
    assert answer.tool_call_id == vetted.invalid_tool_calls[0]["id"]


def test_what_is_echoed_back_is_bounded():
    assert echo("x" * 10) == "x" * 10
    long = echo("y" * 100_000)
    assert long.startswith("y" * MAX_ECHO_CHARS) and long.endswith("(100,000 characters in all)")
    assert len(long) < MAX_ECHO_CHARS + 40

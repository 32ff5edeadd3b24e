"""A model's mistakes in its tool calls come back to it as error results, never as a 500.

The corpus of issue #46: real models make these every day. Served over real HTTP with the
real ChatOpenAI against the suite's OpenAI-compatible stub, on the sync route and the
stream (with streamed tokens, so tool calls arrive as streamed chunks too). Each mistake
must end the question with a valid 200 envelope, the model's next request must hold the
error result (words it can act on, bounded in size), every assistant tool call sent back
must have a JSON object as its arguments (servers such as llama.cpp refuse anything else),
and the thread must answer its next question.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from config import localize
from react_agent.graph.nodes.tool_calls import MAX_ERROR_CHARS
from tests.app.asking.test_model_faults import (
    REGION_SQL,
    TRANSPORTS,
    ask,
    assert_next_question_works,
    new_thread,
)
from tests.support.live_server import running_service
from tests.support.model_requests import tool_results, unanswered_tool_call_ids
from tests.support.openai_stub import Reply, ToolCall

HUGE = "".join(f"{n:06d}," for n in range(20_000))[:100_000]
"""A 100 KB argument that never repeats one unit, so the reply-loop check (#46.2) leaves it be."""

SQL_TOOLS = ["list_tables", "describe_tables", "check_sql", "run_sql", "read_result"]


@pytest.fixture
def llm_settings(stub_settings):
    """Return the stub-LLM settings without a resume grace."""
    return stub_settings.model_copy(update={"stream_resume_grace": 0.0})


MISTAKES: dict[str, tuple[ToolCall, list[str]]] = {
    # name: (the bad call, words its error result must hold)
    "wrong_parameter_name": (
        ToolCall("run_sql", {"query": REGION_SQL}),
        ["no argument 'query'", "sql (string, required)"],
    ),
    "no_arguments": (ToolCall("run_sql", {}), ["sql is missing"]),
    "no_arguments_string_empty": (ToolCall("run_sql", raw_arguments=""), ["sql is missing"]),
    "missing_argument": (
        ToolCall("read_result", {"limit": 5}),
        ["result_id is missing", "result_id (string, required)"],
    ),
    "extra_argument": (
        ToolCall("run_sql", {"sql": REGION_SQL, "limit": 10}),
        ["no argument 'limit'", "sql (string, required)"],
    ),
    "wrong_type_number": (
        ToolCall("read_result", {"result_id": "r1", "limit": "many"}),
        ["limit", "integer", "many"],
    ),
    "wrong_type_list": (
        ToolCall("describe_tables", {"table_names": "orders"}),
        ["table_names", "list", "orders"],
    ),
    "invalid_json": (
        ToolCall("run_sql", raw_arguments='{"sql": SELECT region_name FROM regions}'),
        ["not valid JSON", "one JSON object"],
    ),
    "json_but_a_list": (
        ToolCall("run_sql", raw_arguments=json.dumps([REGION_SQL])),
        ["JSON but a list", "one JSON object"],
    ),
    "json_string_of_no_object": (
        ToolCall("run_sql", raw_arguments=json.dumps(REGION_SQL)),
        ["not valid JSON", "one JSON object"],
    ),
    "unknown_tool": (
        ToolCall("drop_database", {"name": "sales"}),
        ["drop_database is not a valid tool", *SQL_TOOLS],
    ),
    "empty_tool_name": (ToolCall("", {"sql": REGION_SQL}), ["names no tool", *SQL_TOOLS]),
    "argument_of_100_kb": (
        ToolCall("run_sql", {"sql": f"SELECT '{HUGE}'"}),
        ["characters long, more than the 20,000 allowed"],
    ),
    "argument_of_100_kb_invalid_json": (
        ToolCall("run_sql", raw_arguments='{"sql": ' + HUGE),
        ["not valid JSON", "100,008 characters in all"],
    ),
    "wrong_type_of_15_kb": (
        ToolCall("describe_tables", {"table_names": HUGE[:15_000]}),
        ["table_names", "list", "15,000 characters in all"],
    ),
}


def assert_history_is_valid(request: dict[str, Any]) -> None:
    """Every call is answered, has a name and one JSON object as its arguments.

    OpenAI answers 400 to a history with an empty tool name; llama.cpp to arguments that
    are not JSON: either would break every later question of the thread.
    """
    assert unanswered_tool_call_ids(request) == []
    for message in request["messages"]:
        for call in message.get("tool_calls") or []:
            assert isinstance(json.loads(call["function"]["arguments"]), dict), call
            assert call["function"]["name"], call


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
async def test_a_wrong_tool_call_comes_back_to_the_model_which_corrects_itself(
    llm_settings, stub, transport, mistake
):
    bad_call, words = MISTAKES[mistake]
    # A huge argument streams in long pieces: 25,000 four-character deltas would spend the
    # test's time in the openai client (about 0.6 ms a delta), not in the service.
    chunk_size = 2_000 if len(bad_call.arguments_json()) > 10_000 else 4
    stub.script(
        Reply(tool_calls=[bad_call], chunk_size=chunk_size),
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
        assert outcome.data["react_agent_meta"]["sql_execution_count"] == 1
        _, second, third = stub.requests
        [error] = tool_results(second)
        assert error.startswith("Error"), error
        for word in words:
            assert word in error, (word, error)
        assert len(error) <= MAX_ERROR_CHARS
        # What goes back to the model stays small, whatever size the mistake had.
        assert len(json.dumps(second, ensure_ascii=False)) < 30_000
        assert_history_is_valid(second)
        assert_history_is_valid(third)

        await assert_next_question_works(service, stub, transport, thread_id, "有哪些地区")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_arguments_sent_as_a_json_string_of_an_object_are_decoded_once_and_run(
    llm_settings, stub, transport
):
    stub.script(
        Reply(
            tool_calls=[
                ToolCall("run_sql", raw_arguments=json.dumps(json.dumps({"sql": REGION_SQL})))
            ]
        ),
        Reply(text="共有七个地区。"),
    )
    async with running_service(llm_settings) as service:
        outcome = await ask(service, transport, "有哪些地区", new_thread())

    assert outcome.code == 200, outcome.envelope
    assert outcome.data["sql"] == REGION_SQL
    assert outcome.data["records"]["total_row_count"] == 7
    [result] = tool_results(stub.requests[1])
    assert result.startswith("result_id:") and "7 row(s)" in result
    assert_history_is_valid(stub.requests[1])


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_two_calls_in_one_message_each_get_their_own_result(llm_settings, stub, transport):
    stub.script(
        Reply(
            tool_calls=[
                ToolCall("run_sql", {"query": "SELECT 1"}),
                ToolCall("run_sql", {"sql": REGION_SQL}),
                ToolCall("list_tables", {}),
            ]
        ),
        Reply(text="共有七个地区。"),
    )
    async with running_service(llm_settings) as service:
        outcome = await ask(service, transport, "有哪些地区", new_thread())

    assert outcome.code == 200, outcome.envelope
    assert outcome.data["sql"] == REGION_SQL
    results = tool_results(stub.requests[1])
    assert len(results) == 3
    assert sum(r.startswith("Error") and "no argument 'query'" in r for r in results) == 1
    assert sum(r.startswith("result_id:") for r in results) == 1
    assert sum("regions (" in r for r in results) == 1
    assert_history_is_valid(stub.requests[1])


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_tool_call_after_the_answer_runs_and_the_model_answers_again(
    llm_settings, stub, transport
):
    # The answer's text, then a tool call in the same message: the call is run, and the
    # question's answer is the model's next one.
    stub.script(
        Reply(text="共有七个地区。", tool_calls=[ToolCall("run_sql", {"sql": REGION_SQL})]),
        Reply(text="查过了：共有七个地区。"),
    )
    async with running_service(llm_settings) as service:
        outcome = await ask(service, transport, "有哪些地区", new_thread())

    assert outcome.code == 200, outcome.envelope
    assert outcome.data["response"] == "查过了：共有七个地区。"
    assert outcome.data["sql"] == REGION_SQL
    [result] = tool_results(stub.requests[1])
    assert result.startswith("result_id:")
    assert_history_is_valid(stub.requests[1])


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_model_that_keeps_calling_wrongly_stops_at_the_step_limit(
    llm_settings, stub, transport
):
    # Every round of wrong calls counts toward the step limit like any other round.
    stub.script(*[Reply(tool_calls=[ToolCall("run_sql", {"query": "SELECT 1"})])] * 20)
    limited = llm_settings.model_copy(update={"recursion_limit": 14})
    async with running_service(limited) as service:
        outcome = await ask(service, transport, "有哪些地区", new_thread())

    assert outcome.code == 200, outcome.envelope
    assert outcome.data["response"] == localize("STEP_LIMIT_ANSWER", "zh-CN")
    # 14 steps: the first model call, then two rounds of four steps, then the answer.
    assert len(stub.requests) == 3
    assert all("no argument 'query'" in r for r in tool_results(stub.requests[-1]))

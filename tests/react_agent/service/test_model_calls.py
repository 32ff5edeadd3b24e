"""Model calls per question (#48), through ChatOpenAI and the stub over HTTP.

Two for a simple question, at most one for a verified one, and requests that start with
the previous one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from bench.model_calls.policy import first_prompt_chars, prefix_share, tool_calling_model
from bench.schema_scale.load import write_semantic_file, write_sqlite
from bench.schema_scale.schema import build_tables
from config import Settings
from react_agent.approval.decisions import ApprovalDecision
from react_agent.memory.examples import SQL
from react_agent.runs.run_flags import RunFlags
from react_agent.service import open_agent_service
from react_agent.service.state import AgentService
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub

QUESTION = "每个地区的销售额是多少"
APPROVE = RunFlags(approve_sql=True)


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        server.default_policy = tool_calling_model
        server.prefix_cache = True
        yield server


@asynccontextmanager
async def agent(
    settings: Settings, stub: OpenAIStub, **changes: Any
) -> AsyncIterator[AgentService]:
    """Open the service on the stub with the default settings but `changes`."""
    configured = settings.model_copy(
        update={
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("test-key"),
            "llm_model": "stub-model",
            "llm_max_retries": 0,
            **changes,
        }
    )
    async with open_agent_service(configured) as service:
        assert service.catalog is not None
        await service.catalog.wait_ready()
        yield service


def tool_names(stub: OpenAIStub) -> list[str]:
    """Return the tools the model called, in order, from the requests it got."""
    return [
        call["function"]["name"]
        for body in stub.requests[-1:]
        for message in body["messages"]
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
    ]


async def test_a_simple_question_takes_two_calls_whose_second_resends_the_first(settings, stub):
    async with agent(settings, stub) as service:
        result = await service.runner.ask(QUESTION, "wang1:simple")

    first, second = stub.requests  # exactly two model calls
    assert result.sql == DEFAULT_SALES_SQL and result.tools_used == ["run_sql"]
    assert "Schema:" in first["messages"][0]["content"]  # no listing call needed
    assert "check_sql" not in {tool["function"]["name"] for tool in first["tools"]}
    assert prefix_share(first, second) >= 0.98
    assert result.usage is not None and result.usage["cached_tokens"] > 0


async def test_a_follow_up_starts_with_the_whole_previous_turn(settings, stub):
    async with agent(settings, stub) as service:
        await service.runner.ask(QUESTION, "wang1:follow")
        turn_one = len(stub.requests)
        await service.runner.ask("其中华东是多少", "wang1:follow")

    requests = stub.requests
    assert len(requests) - turn_one == 2
    assert prefix_share(requests[turn_one - 1], requests[turn_one]) >= 0.90
    assert prefix_share(requests[-2], requests[-1]) >= 0.98


async def test_the_stable_prompt_is_the_same_for_two_questions_and_their_contexts_differ(
    settings, stub
):
    async with agent(settings, stub) as service:
        await service.runner.ask(QUESTION, "wang1:one")
        await service.runner.ask("上海有几家门店", "wang1:two")

    one, two = stub.requests[0], stub.requests[2]
    assert one["messages"][0] == two["messages"][0]  # the stable prefix, byte for byte
    assert one["tools"] == two["tools"]
    assert "上海" in two["messages"][1]["content"]  # the value link, in the question's part
    assert "Current time" not in one["messages"][0]["content"]


async def test_without_the_schema_in_the_prompt_the_model_lists_the_tables(settings, stub):
    async with agent(settings, stub, schema_prompt_budget=0, sql_check_tool="always") as service:
        result = await service.runner.ask(QUESTION, "wang1:before")

    # The behaviour #48 measured before: listing, describing, checking, running, answering.
    assert result.tools_used == ["list_tables", "describe_tables", "check_sql", "run_sql"]
    assert len(stub.requests) == 5


async def test_a_verified_question_runs_its_sql_and_calls_the_model_once(settings, stub):
    async with agent(settings, stub) as service:
        assert service.memory is not None
        asked_before = "每个地区的 销售额是多少？"
        example = await service.memory.examples.add(SQL, asked_before, DEFAULT_SALES_SQL)
        result = await service.runner.ask("每个地区的销售额是多少?", "wang1:verified")

    assert len(stub.requests) == 1  # only the answer is asked for
    assert result.verified_example_id == example.id
    assert result.sql == DEFAULT_SALES_SQL and result.sqls[0]["status"] == "ok"
    assert result.answer.startswith("查询结果如下")


async def test_a_verified_question_answers_directly_without_a_model_call(settings, stub):
    async with agent(settings, stub, verified_answers="direct") as service:
        assert service.memory is not None
        example = await service.memory.examples.add(SQL, QUESTION, DEFAULT_SALES_SQL)
        result = await service.runner.ask("ＥＶＥＲＹ " + QUESTION, "wang1:none")
        direct = await service.runner.ask(QUESTION, "wang1:direct")

    assert result.verified_example_id is None  # other words: the model writes the SQL
    assert direct.verified_example_id == example.id
    assert direct.records is not None and direct.records["total_row_count"] == 7
    assert direct.answer == "以下是已验证查询的结果（共 7 行）。"
    assert len(stub.requests) == 2  # the first question's two; none for the verified one


async def test_a_near_match_substitutes_the_stored_value_of_the_same_column(settings, stub):
    sql = (
        "SELECT ROUND(SUM(o.total_amount), 2) AS sales FROM orders o "
        "JOIN stores s ON s.store_id = o.store_id JOIN regions r ON r.region_id = s.region_id "
        "WHERE r.region_name = '华北'"
    )
    async with agent(settings, stub, verified_answers="direct") as service:
        assert service.memory is not None
        example = await service.memory.examples.add(SQL, "华北的销售额是多少", sql)
        result = await service.runner.ask("华东的销售额是多少", "wang1:near")

    assert result.verified_example_id == example.id
    assert result.sql == sql.replace("'华北'", "'华东'")
    assert stub.requests == []


@pytest.fixture(scope="module")
def thousand_tables(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("schema1000")
    tables = build_tables()
    write_sqlite(tables, folder / "schema.db")
    write_semantic_file(tables, folder / "semantic.yaml")
    return folder / "schema.db", folder / "semantic.yaml"


async def test_the_first_prompt_on_a_thousand_tables_stays_under_six_thousand_characters(
    settings, stub, thousand_tables
):
    database, semantic = thousand_tables
    async with agent(
        settings, stub, data_database_url=f"sqlite:///{database}", semantic_file=semantic
    ) as service:
        await service.runner.ask("每个门店的库存数量是多少", "wang1:scale")

    first = stub.requests[0]
    assert first_prompt_chars(first) <= 6000
    assert "Schema:" in "".join(m["content"] for m in first["messages"] if m["role"] == "system")


async def test_an_approval_run_gets_check_sql_and_a_verified_query_waits_for_the_person(
    settings, stub
):
    async with agent(settings, stub, verified_answers="direct") as service:
        assert service.memory is not None
        example = await service.memory.examples.add(SQL, QUESTION, DEFAULT_SALES_SQL)
        checked = await service.runner.start("一共有几家门店", "wang1:check", flags=APPROVE)
        checked_wait = await checked.result()
        verified = await service.runner.start(QUESTION, "wang1:approve", flags=APPROVE)
        waiting = await verified.result()
        decision = ApprovalDecision(waiting.approval["interrupt_id"], "approve")
        resumed = await service.runner.start("", "wang1:approve", resume=decision)
        result = await resumed.result()

    # A run that stops for approval checks its SQL first, and the card shows it unrun.
    assert "check_sql" in {tool["function"]["name"] for tool in stub.requests[0]["tools"]}
    assert checked_wait.tools_used == ["check_sql"] and checked_wait.approval is not None
    assert waiting.approval["sql"] == DEFAULT_SALES_SQL and waiting.records is None
    assert result.verified_example_id == example.id and result.records is not None


async def test_a_verified_query_the_guard_refuses_goes_back_to_the_model(settings, stub):
    async with agent(settings, stub, sql_allowed_tables="orders,stores,regions") as service:
        assert service.memory is not None
        await service.memory.examples.add(SQL, "客户有多少", "SELECT COUNT(*) FROM customers")
        result = await service.runner.ask("客户有多少", "wang1:refused")

    # The example is out of the allowed tables: refused as a tool result, the model goes on.
    assert result.sqls[0]["status"] == "refused" and result.sqls[1]["status"] == "ok"
    assert result.verified_example_id is None and len(stub.requests) == 2

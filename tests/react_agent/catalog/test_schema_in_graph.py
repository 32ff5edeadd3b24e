"""The schema in the agent's prompt: all of it when it fits; search_schema finds the rest."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from langchain_core.messages import BaseMessage, SystemMessage, ToolMessage

from tests.react_agent.conftest import OpenService
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool, prompt_text

SHIPMENTS_SQL = "SELECT COUNT(*) AS delayed FROM logistics_events WHERE delay_minutes > 60"


def system_text(messages: list[BaseMessage]) -> str:
    """Return the system prompts of a request: the stable one and the question's context."""
    return "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))


def many_tables_database(path: Path) -> str:
    """Write a database of 40 sales tables and one logistics table; return its URL."""
    with sqlite3.connect(path) as connection:
        for n in range(40):
            connection.execute(
                f"CREATE TABLE sales_report_{n:02d} (id INTEGER PRIMARY KEY, region TEXT, "
                "revenue REAL, order_count INTEGER, month TEXT)"
            )
        connection.execute(
            "CREATE TABLE logistics_events (id INTEGER PRIMARY KEY, parcel_code TEXT, "
            "carrier TEXT, delay_minutes INTEGER)"
        )
        connection.executemany(
            "INSERT INTO logistics_events (parcel_code, carrier, delay_minutes) VALUES (?, ?, ?)",
            [(f"P{n}", "顺丰", n * 10) for n in range(12)],
        )
    return f"sqlite:///{path}"


async def test_a_table_outside_the_top_k_is_found_with_search_schema(
    open_service: OpenService, tmp_path: Path
) -> None:
    model = ScriptedChatModel(
        replies=[
            call_tool("search_schema", query="logistics delay parcel"),
            call_tool("run_sql", sql=SHIPMENTS_SQL),
            answer("有 5 个包裹延误超过一小时。"),
        ]
    )
    url = many_tables_database(tmp_path / "many.db")
    async with open_service(model, data_database_url=url, schema_prompt_budget=2_000) as service:
        await service.catalog.wait_ready()
        result = await service.runner.ask("延误超过一小时的包裹有几个？", "wang:1")

    prompt = system_text(model.seen[0])
    # Retrieved for this question: in its context, after the stable prompt (#48).
    assert "Schema: the " not in str(model.seen[0][0].content)
    assert "Schema: the " in prompt and "of 41 tables" in prompt
    assert "logistics_events" not in prompt  # the question's words name none of it
    found = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert found.name == "search_schema"
    assert found.content.startswith("logistics_events (~12 rows)")
    assert "delay_minutes INTEGER" in found.content
    assert result.sql == SHIPMENTS_SQL
    assert result.records["rows"] == [{"delayed": 5}]
    assert result.tools_used == ["search_schema", "run_sql"]


async def test_the_whole_sample_schema_in_the_prompt_needs_no_list_tables(
    open_service: OpenService,
) -> None:
    model = ScriptedChatModel(
        replies=[
            call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM regions"),
            answer("共有 7 个大区。"),
        ]
    )
    async with open_service(model, schema_prompt_budget=12_000) as service:
        await service.catalog.wait_ready()
        result = await service.runner.ask("一共有几个大区？", "wang:2")

    prompt = prompt_text(model.seen[0])
    assert "Schema: every table you may read is described below" in prompt
    assert "Tables: see the schema below" in prompt
    assert "region_name TEXT" in prompt and "{values: 东北, 华东" in prompt
    assert result.tools_used == ["run_sql"]


async def test_with_a_budget_of_0_the_prompt_lists_table_names_as_before(
    open_service: OpenService,
) -> None:
    model = ScriptedChatModel(replies=[answer("好的")])
    async with open_service(model, schema_prompt_budget=0) as service:
        await service.catalog.wait_ready()
        await service.runner.ask("你好", "wang:3")

    prompt = system_text(model.seen[0])
    assert "Tables: customers, order_items, orders, products, regions, stores" in prompt
    assert "Schema:" not in prompt
    assert all("search_schema" not in names for names in model.bound_tools)

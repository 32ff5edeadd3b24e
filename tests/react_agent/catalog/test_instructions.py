"""Business instructions: in the prompt for their tables and dates, and cited in the result."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from react_agent.catalog.semantic.model import SemanticFileError
from react_agent.catalog.semantic.parsing import parse_semantics
from tests.react_agent.conftest import OpenService
from tests.support.scripted_model import ScriptedChatModel, answer, prompt_text

SAMPLE = Path(__file__).resolve().parents[3] / "config" / "semantic.sample.yaml"
INSTRUCTIONS = """
instructions:
  - id: fiscal_year
    text: 财年从每年4月1日开始（the fiscal year starts on 1 April）
  - id: test_stores
    text: 排除测试门店 store_id > 9000
    tables: [stores]
  - id: member_names
    text: 会员姓名只用于计数，不要列出
    tables: [customers]
  - id: sales_old
    text: 销售额含已退款订单
    valid_to: 2024-03-31
  - id: sales_new
    text: 销售额只算已完成订单，不含退款
    valid_from: 2024-04-01
"""


@pytest.fixture
def semantic_file(tmp_path: Path) -> Path:
    path = tmp_path / "semantic.yaml"
    path.write_text(SAMPLE.read_text(encoding="utf-8") + INSTRUCTIONS, encoding="utf-8")
    return path


async def ask(open_service: OpenService, **overrides: object) -> tuple[str, list[str]]:
    """Ask one question; return the model's system prompt and the instructions cited."""
    model = ScriptedChatModel(replies=[answer("好的")])
    async with open_service(model, **overrides) as service:
        await service.catalog.wait_ready()
        result = await service.runner.ask("上个财年的销售额是多少？", "wang:1")
    return prompt_text(model.seen[0]), result.instructions_used


async def test_the_instructions_in_force_today_reach_the_prompt_and_are_cited(
    open_service: OpenService, semantic_file: Path
) -> None:
    prompt, cited = await ask(
        open_service, semantic_file=semantic_file, schema_prompt_budget=12_000
    )
    assert "Business instructions" in prompt
    assert "- [fiscal_year] 财年从每年4月1日开始" in prompt
    assert "- [test_stores] 排除测试门店 store_id > 9000 (tables: stores)" in prompt
    assert "[sales_new]" in prompt and "[sales_old]" not in prompt
    # Stable part: the instructions come before the schema's tables.
    assert prompt.index("[fiscal_year]") < prompt.index("region_name TEXT")
    assert cited == ["fiscal_year", "test_stores", "member_names", "sales_new"]


async def test_a_table_scoped_instruction_needs_its_table_readable(
    open_service: OpenService, semantic_file: Path
) -> None:
    prompt, cited = await ask(
        open_service,
        semantic_file=semantic_file,
        schema_prompt_budget=12_000,
        sql_allowed_tables="orders,order_items,stores,regions,products",
    )
    assert "[test_stores]" in prompt and "[member_names]" not in prompt
    assert "member_names" not in cited


async def test_an_as_of_date_gives_that_days_definitions(
    open_service: OpenService, semantic_file: Path
) -> None:
    prompt, cited = await ask(
        open_service,
        semantic_file=semantic_file,
        schema_prompt_budget=12_000,
        instructions_as_of=date(2024, 1, 15),
    )
    assert "[sales_old] 销售额含已退款订单" in prompt and "[sales_new]" not in prompt
    assert cited == ["fiscal_year", "test_stores", "member_names", "sales_old"]


async def test_without_the_schema_in_the_prompt_the_instructions_still_go_in(
    open_service: OpenService, semantic_file: Path
) -> None:
    prompt, cited = await ask(open_service, semantic_file=semantic_file, schema_prompt_budget=0)
    assert "[fiscal_year]" in prompt and "region_name TEXT" not in prompt
    assert "Tables: see the schema below" not in prompt  # the prompt lists the tables
    assert "fiscal_year" in cited


async def test_without_a_semantic_file_nothing_is_cited(open_service: OpenService) -> None:
    prompt, cited = await ask(open_service, schema_prompt_budget=12_000)
    assert "Business instructions" not in prompt and cited == []


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("  - {text: no id}", "3: an instruction needs id and text"),
        ("  - {id: a, text: x, valid_from: April}", "3: valid_from must be a date"),
        ("  - {id: a, text: x}\n  - {id: a, text: y}", "4: instruction id 'a' is used twice"),
        ("  - {id: a, text: x, scope: all}", "3: unknown key 'scope'"),
        ("  - {id: a, text: x, tables: stores}", "3: tables must be a list"),
    ],
)
def test_a_malformed_instruction_names_its_line(entry: str, problem: str) -> None:
    with pytest.raises(SemanticFileError) as caught:
        parse_semantics(f"tables: {{}}\ninstructions:\n{entry}\n")
    assert f"semantic file:{problem}" in str(caught.value)

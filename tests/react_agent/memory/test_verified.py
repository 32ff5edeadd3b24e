"""Verified answers: which example a question matches, on a real memory database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from config import Settings
from react_agent.access.current import CURRENT_SCOPE
from react_agent.access.scope import Scope
from react_agent.memory.examples import ERROR_SQL, PROPOSED, SQL
from react_agent.memory.retrieval.retriever import ExampleRetriever
from react_agent.memory.retrieval.verified import VerifiedAnswers, normalise
from react_agent.memory.store import Memory, open_memory

SALES_SQL = (
    "SELECT SUM(o.total_amount) FROM orders o JOIN stores s ON s.store_id = o.store_id "
    "JOIN regions r ON r.region_id = s.region_id WHERE r.region_name = '华北'"
)
LINKS = {
    "华北": ("华北", "regions", "region_name"),
    "华东": ("华东", "regions", "region_name"),
    "上海": ("上海", "stores", "city"),
}


async def value_links(text: str) -> list[tuple[str, str, str, str]]:
    """Return the value links of the words of LINKS in `text`, as the catalogue gives them."""
    return [(said, value, t, c) for said, (value, t, c) in LINKS.items() if said in text]


@pytest.fixture
async def memory(settings: Settings) -> AsyncIterator[Memory]:
    async with open_memory(settings) as opened:
        yield opened


def answers(memory: Memory, near: float = 0.8) -> VerifiedAnswers:
    retriever = ExampleRetriever(memory.examples, k=5, budget_chars=4000, revision_ttl=0)
    return VerifiedAnswers(retriever, near_match=near, value_links=value_links)


@pytest.mark.parametrize(
    ("asked", "stored"),
    [
        ("华北的销售额是多少", "华北的销售额是多少？"),
        ("华北 的 销售额是多少!", "华北的销售额是多少"),
        ("Sales of 华北", "sales  OF 华北."),
        ("ＳＡＬＥＳ ｏｆ 华北", "sales of 华北"),  # full width
    ],
)
def test_the_same_words_normalise_alike(asked: str, stored: str) -> None:
    assert normalise(asked) == normalise(stored)


async def test_an_exact_match_gives_the_examples_sql_unchanged(memory: Memory) -> None:
    example = await memory.examples.add(SQL, "华北的销售额是多少？", SALES_SQL)
    match = await answers(memory).match("华北的 销售额是多少")
    assert match is not None and (match.example_id, match.sql) == (example.id, SALES_SQL)
    assert match.near is False


async def test_a_near_match_swaps_the_value_of_the_same_column(memory: Memory) -> None:
    example = await memory.examples.add(SQL, "华北的销售额是多少", SALES_SQL)
    match = await answers(memory).match("华东的销售额是多少")
    assert match is not None and match.example_id == example.id and match.near
    assert match.sql == SALES_SQL.replace("'华北'", "'华东'")


async def test_no_near_match_for_another_column_other_words_or_below_the_threshold(
    memory: Memory,
) -> None:
    await memory.examples.add(SQL, "华北的销售额是多少", SALES_SQL)
    assert await answers(memory).match("上海的销售额是多少") is None  # stores.city
    assert await answers(memory).match("华东的利润是多少") is None  # more than the value
    assert await answers(memory, near=0.95).match("华东的销售额是多少") is None
    assert await answers(memory, near=0).match("华东的销售额是多少") is None


async def test_only_verified_sql_examples_are_taken(memory: Memory) -> None:
    await memory.examples.add(SQL, "华北的销售额是多少", SALES_SQL, status=PROPOSED)
    await memory.examples.add(ERROR_SQL, "华北的销售额是多少", SALES_SQL)
    assert await answers(memory).match("华北的销售额是多少") is None


async def test_a_scoped_asker_gets_only_examples_within_their_tables(memory: Memory) -> None:
    await memory.examples.add(SQL, "华北的销售额是多少", SALES_SQL)
    outside = Scope(tables=frozenset({"orders", "stores"}))
    inside = Scope(tables=frozenset({"orders", "stores", "regions"}))
    token = CURRENT_SCOPE.set(outside)
    try:
        assert await answers(memory).match("华北的销售额是多少") is None
        CURRENT_SCOPE.set(inside)
        assert await answers(memory).match("华北的销售额是多少") is not None
    finally:
        CURRENT_SCOPE.reset(token)

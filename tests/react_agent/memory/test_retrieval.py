"""Ranking and the prompt budget, on a real memory database."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from config import Settings
from react_agent.memory.examples import DOCUMENTATION, SQL, MemoryItem
from react_agent.memory.retrieval.prompt import render_examples
from react_agent.memory.retrieval.ranking import LexicalIndex, _LuceneIdfBM25, document_text
from react_agent.memory.retrieval.retriever import REVISION_TTL, ExampleRetriever
from react_agent.memory.retrieval.tokens import tokenize
from react_agent.memory.store import Memory, open_memory


@pytest.fixture
async def memory(settings: Settings) -> AsyncIterator[Memory]:
    """Yield a memory on a fresh SQLite file, k=5 and a 1,500-character budget."""
    async with open_memory(
        settings.model_copy(update={"memory_examples_k": 5, "memory_prompt_budget_chars": 1500})
    ) as opened:
        yield opened


def test_tokens_are_cjk_bigrams_and_lower_case_latin_words() -> None:
    assert tokenize("各地区 GMV 的Sales") == ["gmv", "sales", "各地", "地区", "的"]


def test_one_matching_item_among_two_scores_above_zero() -> None:
    index = LexicalIndex(
        [MemoryItem("a", SQL, "sales by region", "SELECT 1"), MemoryItem("b", SQL, "x", "y")]
    )
    assert [item.id for item, _ in index.search("region sales", 5)] == ["a"]


async def test_the_budget_and_k_hold_with_ten_thousand_examples(memory: Memory) -> None:
    rows = [
        (f"id-{i}", SQL, f"地区 {i} 的销售额 region sales {i}", f"SELECT {i} FROM orders")
        for i in range(10_000)
    ]
    await asyncio.gather(*(memory.examples.add(kind, q, sql) for _, kind, q, sql in rows[:50]))
    # The rest in one statement per thousand: the test is about retrieval, not inserting.
    for start in range(50, 10_000, 1000):
        values = rows[start : start + 1000]
        await memory.database.execute(
            "INSERT INTO memory_items (id, training_data_type, question, content, created_at, "
            "updated_at) VALUES " + ", ".join("(?, ?, ?, ?, '', '')" for _ in values),
            [field for row in values for field in row],
        )
    await memory.examples._bump_revision()
    block, ids = await memory.retriever.prompt_block("各地区的销售额 region sales")
    assert 0 < len(ids) <= 5
    assert len(block) <= 1500
    assert len(await memory.retriever.search("地区 销售额", k=20)) == 20


def test_an_item_longer_than_the_budget_is_skipped_not_cut() -> None:
    long_note = MemoryItem("long", DOCUMENTATION, None, "x" * 5000)
    short = MemoryItem("short", SQL, "q", "SELECT 1")
    block, ids = render_examples([long_note, short], 1000)
    assert ids == ["short"] and "x" * 100 not in block
    assert render_examples([long_note], 1000) == ("", [])


async def test_a_change_by_another_store_is_seen_by_the_retriever(
    memory: Memory, settings: Settings
) -> None:
    # No time to live: every search reads the revision (the next test covers the default).
    retriever = ExampleRetriever(memory.examples, k=5, budget_chars=1500, revision_ttl=0)
    assert await retriever.search("refunds") == []
    async with open_memory(settings) as other_process:
        note = await other_process.examples.add(DOCUMENTATION, None, "GMV excludes refunds")
    assert [item.id for item in await retriever.search("refunds")] == [note.id]


async def test_the_revision_is_read_once_per_time_to_live_and_at_once_after_a_local_write(
    memory: Memory, settings: Settings
) -> None:
    now = [1000.0]
    retriever = ExampleRetriever(memory.examples, k=5, budget_chars=1500, clock=lambda: now[0])
    assert await retriever.search("refunds") == []
    async with open_memory(settings) as other_process:
        note = await other_process.examples.add(DOCUMENTATION, None, "GMV excludes refunds")
    # Within the time to live, another process's change is not read yet: no query per question.
    now[0] += REVISION_TTL / 2
    assert await retriever.search("refunds") == []
    now[0] += REVISION_TTL
    assert [item.id for item in await retriever.search("refunds")] == [note.id]
    # A write through this process's store is seen at once, whatever the clock says.
    local = await memory.examples.add(DOCUMENTATION, None, "Refunds are negative orders")
    assert {item.id for item in await retriever.search("refunds")} == {note.id, local.id}


async def test_an_empty_memory_is_not_searched(memory: Memory) -> None:
    assert await memory.retriever.prompt_block("各地区的销售额") == ("", [])
    assert not memory.retriever.holds_items
    await memory.examples.add(DOCUMENTATION, None, "GMV excludes refunds")
    assert (await memory.retriever.prompt_block("GMV"))[1] != []
    assert memory.retriever.holds_items


def test_the_inverted_index_scores_as_rank_bm25_scores_every_item() -> None:
    rng = random.Random(5)
    words = ["地区", "销售", "region", "sales", "orders", "refund", "gmv", "month", "华东"]
    items = [
        MemoryItem(f"i{i}", SQL, " ".join(rng.choices(words, k=rng.randint(1, 8))), "")
        for i in range(300)
    ]
    index = LexicalIndex(items)
    reference = _LuceneIdfBM25([tokenize(document_text(item)) or ["\x00"] for item in items])
    for _ in range(50):
        query = " ".join(rng.choices(words, k=rng.randint(1, 4)))
        expected = reference.get_scores(
            [word for word in dict.fromkeys(tokenize(query)) if word in reference.idf]
        )
        found = index.search(query, 300)
        assert [score for _, score in found] == sorted(
            (score for score in expected if score > 0), reverse=True
        )
        assert all(expected[int(item.id[1:])] == score for item, score in found)


async def test_the_memory_refuses_to_live_in_the_data_database(settings: Settings) -> None:
    url = f"sqlite:///{settings.data_dir / 'shop.db'}"
    same = settings.model_copy(update={"data_database_url": url, "memory_database_url": url})
    with pytest.raises(ValueError, match="data database"):
        async with open_memory(same):
            pass

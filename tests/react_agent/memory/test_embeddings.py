"""The embeddings path: vectors from the stub's /v1/embeddings, stored, searched and fused."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from config import Settings
from react_agent.memory import retrieval
from react_agent.memory.examples import SQL
from react_agent.memory.retrieval import INLINE_VECTOR_ELEMENTS
from react_agent.memory.store import open_memory
from tests.support.openai_stub import EMBEDDING_DIMENSIONS, OpenAIStub


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    """Start the OpenAI-compatible stub for one test."""
    with OpenAIStub() as server:
        yield server


@pytest.fixture
def embedding_settings(settings: Settings, stub: OpenAIStub) -> Settings:
    """Return settings whose EMBEDDING_MODEL is served by the stub."""
    return settings.model_copy(
        update={
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("test-key"),
            "embedding_model": "stub-embedding",
            "llm_max_retries": 0,
        }
    )


async def test_examples_are_embedded_once_and_stored_with_the_example(
    embedding_settings: Settings, stub: OpenAIStub
) -> None:
    async with open_memory(embedding_settings) as memory:
        item = await memory.examples.add(SQL, "sales by region", "SELECT region FROM orders")
        assert [found.id for found in await memory.retriever.search("region sales")] == [item.id]
        await memory.retriever.search("region sales")
        (stored,) = await memory.examples.all_items()
    vector = json.loads(stored.embedding or "[]")
    assert len(vector) == EMBEDDING_DIMENSIONS
    texts = [text for request in stub.embedding_requests for text in request["input"]]
    assert texts.count("sales by region\nSELECT region FROM orders") == 1
    assert texts.count("region sales") == 2  # each query, embedded every time
    assert {request["model"] for request in stub.embedding_requests} == {"stub-embedding"}


@pytest.mark.parametrize("inline_elements", [INLINE_VECTOR_ELEMENTS, 0], ids=["inline", "thread"])
async def test_a_question_only_the_vectors_match_still_finds_its_example(
    embedding_settings: Settings,
    settings: Settings,
    inline_elements: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 0: every vector search goes to a thread, as a large matrix's does.
    monkeypatch.setattr(retrieval, "INLINE_VECTOR_ELEMENTS", inline_elements)
    # 售销 and 销售 share no character bigram (no lexical match) but every character.
    async with open_memory(embedding_settings) as memory:
        item = await memory.examples.add(SQL, "销售", "SELECT 1")
        await memory.examples.add(SQL, "员工年龄", "SELECT 2")
        assert [found.id for found in await memory.retriever.search("售销")] == [item.id]
    async with open_memory(settings) as lexical_only:
        assert await lexical_only.retriever.search("售销") == []


async def test_an_unreachable_embedding_server_leaves_the_lexical_ranking(
    embedding_settings: Settings,
) -> None:
    broken = embedding_settings.model_copy(update={"openai_base_url": "http://127.0.0.1:9/v1"})
    async with open_memory(broken) as memory:
        item = await memory.examples.add(SQL, "sales by region", "SELECT region FROM orders")
        assert [found.id for found in await memory.retriever.search("region sales")] == [item.id]

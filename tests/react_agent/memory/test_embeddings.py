"""The embeddings path: vectors from the stub's /v1/embeddings, stored, searched and fused."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator

import pytest
from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

from config import Settings
from react_agent.memory import examples
from react_agent.memory.examples import SQL
from react_agent.memory.retrieval import retriever
from react_agent.memory.retrieval.retriever import INLINE_VECTOR_ELEMENTS
from react_agent.memory.store import open_memory
from tests.support.openai_stub import EMBEDDING_DIMENSIONS, OpenAIStub, stub_embedding


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
    memory_url: str,
    inline_elements: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 0: every vector search goes to a thread, as a large matrix's does.
    monkeypatch.setattr(retriever, "INLINE_VECTOR_ELEMENTS", inline_elements)
    storage = {"memory_database_url": memory_url}  # SQLite or PostgreSQL (see conftest)
    # 售销 and 销售 share no character bigram (no lexical match) but every character.
    async with open_memory(embedding_settings.model_copy(update=storage)) as memory:
        item = await memory.examples.add(SQL, "销售", "SELECT 1")
        await memory.examples.add(SQL, "员工年龄", "SELECT 2")
        assert [found.id for found in await memory.retriever.search("售销")] == [item.id]
        stored = {found.id: found.embedding for found in await memory.examples.all_items()}
    assert json.loads(stored[item.id] or "[]") == pytest.approx(
        stub_embedding("销售\nSELECT 1"), abs=1e-6
    )
    async with open_memory(settings.model_copy(update=storage)) as lexical_only:
        assert await lexical_only.retriever.search("售销") == []


class _UpdatedWhileEmbedding(Embeddings):
    """Embeds with `inner`; runs `meanwhile` (once) after the documents' vectors come back."""

    def __init__(self, inner: Embeddings, meanwhile: Callable[[], Awaitable[object]]) -> None:
        self.inner = inner
        self.meanwhile: list[Callable[[], Awaitable[object]]] = [meanwhile]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    def embed_query(self, text: str) -> list[float]:
        raise NotImplementedError

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors = await self.inner.aembed_documents(texts)
        if self.meanwhile:
            await self.meanwhile.pop()()
        return vectors

    async def aembed_query(self, text: str) -> list[float]:
        return await self.inner.aembed_query(text)


# 售销 is only near 销售's vector, 额金款退 only near 退款金额's; neither shares a bigram.
OLD_QUESTION, OLD_ONLY_QUERY = "销售", "售销"
NEW_QUESTION, NEW_ONLY_QUERY = "退款金额", "额金款退"


async def test_an_updated_example_is_embedded_again_from_its_new_text(
    embedding_settings: Settings,
) -> None:
    async with open_memory(embedding_settings) as memory:
        item = await memory.examples.add(SQL, OLD_QUESTION, "SELECT 1")
        await memory.examples.add(SQL, "员工年龄", "SELECT 2")
        assert [found.id for found in await memory.retriever.search(OLD_ONLY_QUERY)] == [item.id]
        assert await memory.retriever.search(NEW_ONLY_QUERY) == []
        assert await memory.examples.update(item.id, SQL, NEW_QUESTION, "SELECT 3")
        assert [found.id for found in await memory.retriever.search(NEW_ONLY_QUERY)] == [item.id]
        assert await memory.retriever.search(OLD_ONLY_QUERY) == []
        stored = {found.id: found.embedding for found in await memory.examples.all_items()}
    assert json.loads(stored[item.id] or "[]") == pytest.approx(
        stub_embedding(f"{NEW_QUESTION}\nSELECT 3"), abs=1e-6
    )


async def test_an_update_while_the_old_text_is_embedded_does_not_keep_the_old_vector(
    embedding_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both writes in one second (times are stored to the second): updated_at is the same.
    monkeypatch.setattr(examples, "storage_timestamp", lambda: "2025-01-01 00:00:00")
    async with open_memory(embedding_settings) as memory:
        item = await memory.examples.add(SQL, OLD_QUESTION, "SELECT 1")
        assert memory.retriever.embedder is not None
        memory.retriever.embedder = _UpdatedWhileEmbedding(
            memory.retriever.embedder,
            lambda: memory.examples.update(item.id, SQL, NEW_QUESTION, "SELECT 3"),
        )
        await memory.retriever.search(OLD_ONLY_QUERY)
        assert [found.id for found in await memory.retriever.search(NEW_ONLY_QUERY)] == [item.id]
        assert await memory.retriever.search(OLD_ONLY_QUERY) == []
        (stored,) = await memory.examples.all_items()
    assert json.loads(stored.embedding or "[]") == pytest.approx(
        stub_embedding(f"{NEW_QUESTION}\nSELECT 3"), abs=1e-6
    )


async def test_an_unreachable_embedding_server_leaves_the_lexical_ranking(
    embedding_settings: Settings,
) -> None:
    broken = embedding_settings.model_copy(update={"openai_base_url": "http://127.0.0.1:9/v1"})
    async with open_memory(broken) as memory:
        item = await memory.examples.add(SQL, "sales by region", "SELECT region FROM orders")
        assert [found.id for found in await memory.retriever.search("region sales")] == [item.id]

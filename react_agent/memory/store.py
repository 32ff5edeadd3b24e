"""Opening the memory: its database (migrated), its stores and its retriever."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from config import Settings
from react_agent.memory.database import MemoryDatabase, open_memory_database
from react_agent.memory.examples import ExampleStore
from react_agent.memory.feedback import FeedbackStore
from react_agent.memory.migrations import migrate_memory
from react_agent.memory.retrieval.retriever import ExampleRetriever
from react_agent.memory.retrieval.vectors import build_embedder


@dataclass
class Memory:
    """Ratings, examples and the retriever over the examples, on one database."""

    database: MemoryDatabase
    feedback: FeedbackStore
    examples: ExampleStore
    retriever: ExampleRetriever


@asynccontextmanager
async def open_memory(settings: Settings) -> AsyncIterator[Memory]:
    """Open and migrate the memory's database; close it on exit.

    Raises:
        ValueError: The memory's URL is the data database's: the model's SQL could read
            the ratings there, and the data database should stay read-only.

    """
    if settings.resolved_memory_database_url == settings.data_database_url:
        raise ValueError("the memory must not be kept in the data database")
    database = await open_memory_database(
        settings.resolved_memory_database_url, connect_timeout=settings.postgres_connect_timeout
    )
    try:
        await migrate_memory(database)
        examples = ExampleStore(database)
        yield Memory(
            database,
            FeedbackStore(database),
            examples,
            ExampleRetriever(
                examples,
                k=settings.memory_examples_k,
                budget_chars=settings.memory_prompt_budget_chars,
                embedder=build_embedder(settings),
            ),
        )
    finally:
        await database.aclose()

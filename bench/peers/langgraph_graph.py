"""Our graph for `langgraph dev` (LangGraph's own server), as one module-level compiled graph.

The graph is the service's own: `open_agent_service` builds the database, the tools, the
nodes, the prompt and ChatOpenAI from the same settings (OPENAI_BASE_URL points at the
benchmark's stub), exactly as `python -m app` does. Only the checkpointer differs: LangGraph's
server brings its own, so the compiled graph is copied without one.

`bench/peers/langgraph.json` names this module; the benchmark starts `langgraph dev` with the
environment it needs (OPENAI_BASE_URL, CHECKPOINT_DATABASE_URL=memory, PYTHONPATH=<repo>).
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import AsyncExitStack
from typing import Any

from config import Settings
from react_agent.service import open_agent_service

_KEPT: list[AsyncExitStack] = []
"""The service's open parts: kept referenced, or their connections close when collected."""

GRAPH_ID = "sql_react_agent"
"""The graph's name in bench/peers/langgraph.json (the `assistant_id` runs are created with)."""


def _build() -> Any:
    settings = Settings(checkpoint_database_url="memory")

    async def build() -> Any:
        # Never closed: the graph lives as long as the server process. Kept referenced: the
        # memory store's SQLite connection closes when collected, and every question's
        # verified-answer step reads it.
        stack = AsyncExitStack()
        _KEPT.append(stack)
        service = await stack.enter_async_context(open_agent_service(settings))
        runner = service.require_runner()
        return runner.graph

    # A loop of its own in a thread that keeps running: this works whether or not the
    # importing thread runs an event loop, and the service's background parts (the memory
    # store among them) stay open, where asyncio.run would cancel them and close the store.
    # The graph itself runs on the server's loop (the SQLite parts run queries in threads,
    # the memory checkpointer is dropped, ChatOpenAI connects lazily).
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="service-parts", daemon=True).start()
    compiled = asyncio.run_coroutine_threadsafe(build(), loop).result()
    return compiled.copy(update={"checkpointer": None})


graph = _build()

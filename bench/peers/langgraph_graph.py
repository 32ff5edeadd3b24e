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
import concurrent.futures
from contextlib import AsyncExitStack
from typing import Any

from config import Settings
from react_agent.service import open_agent_service

GRAPH_ID = "sql_react_agent"
"""The graph's name in bench/peers/langgraph.json (the `assistant_id` runs are created with)."""


def _build() -> Any:
    settings = Settings(checkpoint_database_url="memory")

    async def build() -> Any:
        # Never closed: the graph lives as long as the server process.
        stack = AsyncExitStack()
        service = await stack.enter_async_context(open_agent_service(settings))
        runner = service.require_runner()
        return runner.graph

    # A loop of its own in a worker thread: this works whether or not the importing thread
    # runs an event loop. Nothing built here is bound to that loop (the SQLite database
    # runs queries in threads, the memory checkpointer is dropped, ChatOpenAI connects
    # lazily), so the graph then runs on the server's loop.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        compiled = pool.submit(asyncio.run, build()).result()
    return compiled.copy(update={"checkpointer": None})


graph = _build()

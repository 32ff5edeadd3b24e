"""`python -m app.mcp`: the MCP server over stdio, for hosts that start it themselves."""

from __future__ import annotations

import asyncio
import logging
import sys

from app.asking.thread_ids import ThreadIdClock
from app.mcp.server import build_mcp_server
from app.mcp.tools import DataTools
from config import Settings
from react_agent.service import open_agent_service


async def serve_stdio(settings: Settings) -> None:
    """Build the agent from the settings and serve its tools on stdin/stdout until EOF."""
    async with open_agent_service(settings) as service:
        server = build_mcp_server(DataTools(lambda: service, ThreadIdClock()))
        if service.catalog is not None:
            server.watch_catalog(service.catalog)
        await server.run_stdio_async()


def main() -> None:
    """Read the settings and serve; logs go to stderr, since stdout carries the protocol."""
    settings = Settings()
    logging.basicConfig(
        stream=sys.stderr,
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    asyncio.run(serve_stdio(settings))


if __name__ == "__main__":
    main()

"""Serving the app with Hypercorn on 127.0.0.1 inside the test's event loop."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from hypercorn.asyncio import serve
from hypercorn.config import Config
from quart import Quart
from quart.signals import got_serving_exception

from app.http.app_state import startup_failure_of
from app.server.asgi import ServiceASGI


@asynccontextmanager
async def serve_app(app: Quart) -> AsyncIterator[str]:
    """Serve `app` on a free 127.0.0.1 port until the block ends; yield its base URL.

    The socket listens before the server starts, so a client that connects early waits in
    the backlog instead of failing; `before_serving` has finished when the block begins.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    sock.setblocking(False)
    port = sock.getsockname()[1]
    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.graceful_timeout = 5
    config.accesslog = None
    started = asyncio.Event()
    shutdown = asyncio.Event()

    @app.before_serving
    async def mark_started() -> None:
        started.set()

    async def mark_failed(_sender: Any, **_: Any) -> None:
        started.set()  # Hypercorn would serve the half-started app on: stop here instead

    got_serving_exception.connect(mark_failed, app)
    # The same front as `python -m app`: the Quart app, and the MCP server at /mcp.
    task = asyncio.create_task(serve(ServiceASGI(app), config, shutdown_trigger=shutdown.wait))
    started_wait = asyncio.create_task(started.wait())
    done, _ = await asyncio.wait({task, started_wait}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        started_wait.cancel()
        task.result()  # raises the start-up error
    failure = startup_failure_of(app)
    if failure is not None:
        shutdown.set()
        await asyncio.gather(task, return_exceptions=True)
        sock.detach()
        raise failure
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        shutdown.set()
        await task
        # Hypercorn closed the descriptor it was given; forget it without closing again.
        sock.detach()


@asynccontextmanager
async def running_service(settings: Any, **app_options: Any) -> AsyncIterator[ServiceClient]:
    """Create the app, serve it over real HTTP and yield a client bound to it."""
    import httpx

    from app import create_app

    app = create_app(settings, **app_options)
    async with serve_app(app) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
            yield ServiceClient(app, base_url, http)


class ServiceClient:
    """A served app, its base URL and an httpx client for it."""

    def __init__(self, app: Quart, base_url: str, http: Any) -> None:
        self.app = app
        self.base_url = base_url
        self.http = http

    async def ask(self, **body: Any) -> tuple[int, dict[str, Any]]:
        """POST to the sync endpoint; return the status and the JSON body."""
        response = await self.http.post("/api/v0/ask_react_agent", json=body)
        return response.status_code, response.json()

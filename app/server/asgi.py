"""The service's ASGI front: `/mcp` goes to the MCP server, everything else to the Quart app."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio
from quart import Quart

from app.http.app_state import app_settings_of
from app.http.auth import api_keys_of
from app.http.envelope import error_envelope
from app.mcp.server import API_KEY_SCOPE_KEY
from app.observability.mounted_apps import observed_app
from config import resolve_lang
from react_agent.errors import ServiceError

MCP_PATH = "/mcp"


class ServiceASGI:
    """Serves the Quart app and, beside it, the MCP server's streamable-HTTP app.

    The MCP session manager starts before Quart's start-up and runs until `stop_mcp` or the
    end of the lifespan. `/mcp` needs the same API key as every other route, and has the
    same HTTP metrics and request span (app/observability/mounted_apps).
    """

    def __init__(self, app: Quart) -> None:
        self.app = app
        self.mcp_server = app.extensions["mcp"]
        self.mcp_app = self.mcp_server.streamable_http_app(
            streamable_http_path=MCP_PATH, host=app_settings_of(app).host
        )
        # Quart's hooks never see /mcp: its requests are counted and traced here (refusals too).
        self._observed_mcp = observed_app(self._serve_mcp, MCP_PATH, app_settings_of(app))
        self._mcp_stop = asyncio.Event()
        self._mcp_stopped = asyncio.Event()

    def stop_mcp(self) -> None:
        """End every MCP session (and its open GET stream), so shutdown need not wait for them.

        `python -m app` calls it once the runs in flight have finished or been cancelled.
        """
        self._mcp_stop.set()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Dispatch one ASGI connection (or the lifespan) to the app it belongs to."""
        if scope["type"] == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == MCP_PATH or path.startswith(MCP_PATH + "/")):
            await self._observed_mcp(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _serve_mcp(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Check the API key, then hand the request to the MCP app."""
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }
        keys = api_keys_of(self.app)
        try:
            key = keys.authenticate(headers, None)
        except ServiceError as error:
            await send_error(send, error, headers.get("accept-language"))
            return
        await self.mcp_app({**scope, API_KEY_SCOPE_KEY: key}, receive, send)

    async def _lifespan(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        # The sessions end before Quart hears of the shutdown, so all is closed by the time
        # Hypercorn gets `lifespan.shutdown.complete` (it cancels the lifespan after that).
        async def receive_after_mcp_stopped() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "lifespan.shutdown":
                self.stop_mcp()
                await self._mcp_stopped.wait()
            return message

        async with anyio.create_task_group() as sessions:
            await sessions.start(self._run_mcp_sessions)
            try:
                await self.app(scope, receive_after_mcp_stopped, send)
            finally:
                self.stop_mcp()

    async def _run_mcp_sessions(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            async with self.mcp_server.session_manager.run():
                task_status.started()
                await self._mcp_stop.wait()
        finally:
            self._mcp_stopped.set()


async def send_error(send: Any, error: ServiceError, accept_language: str | None) -> None:
    """Answer a request the front refuses with the service's error envelope."""
    body = json.dumps(
        error_envelope(error, resolve_lang(None, accept_language)), ensure_ascii=False
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b"Bearer"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

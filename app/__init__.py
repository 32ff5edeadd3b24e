"""The Quart app: the ask API over the SQL ReAct agent."""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack
from typing import Any

from langchain_core.language_models import BaseChatModel
from quart import Quart

from app.asking.thread_ids import ThreadIdClock
from app.cors import install_embedding
from app.http.app_state import (
    agent_service_of,
    install_app_state,
    set_agent_service,
    set_startup_failure,
    set_stream_runs,
    startup_failure_of,
    thread_id_clock_of,
)
from app.http.auth import install_api_keys, load_api_keys
from app.http.errors import register_error_handlers
from app.mcp.server import build_mcp_server
from app.mcp.tools import DataTools
from app.observability.setup import install_observability, open_streams_gauge
from app.openai_compat import routes as openai_routes
from app.openapi import install_openapi
from app.routes import audit, usage, whoami
from app.routes.conversations import edits as conversation_edits
from app.routes.conversations import exports
from app.routes.conversations import reads as conversation_reads
from app.routes.data import datasets, instructions, schema
from app.routes.memory import feedback, training_data
from app.routes.operations import health, ready
from app.routes.questions import ask, ask_stream, runs, suggestions
from app.routes.web import page, static_files
from app.streaming.runs import StreamRuns
from config import Settings
from react_agent.runs.store.locks import ThreadLocks
from react_agent.service import open_agent_service

MAX_BODY_BYTES = 64 * 1024
"""A question is at most 2000 characters; anything far larger is not a real request."""


class ServiceQuart(Quart):
    """The Quart app; a failure of its start-up is its opener's to tell (one line), not logged."""

    def log_exception(self, exception_info: Any) -> None:
        """Log an exception, unless it is why the service did not open (kept for its opener)."""
        error = exception_info[1] if exception_info else None
        if error is not None and error is startup_failure_of(self):
            return
        super().log_exception(exception_info)


ROUTE_MODULES = (
    ask,
    ask_stream,
    conversation_reads,
    datasets,
    conversation_edits,
    exports,
    health,
    ready,
    page,
    static_files,
    feedback,
    training_data,
    audit,
    usage,
    schema,
    instructions,
    openai_routes,
)
"""The blueprints registered before the API key check (its order is the routes' order)."""


def create_app(
    settings: Settings | None = None,
    *,
    model: BaseChatModel | None = None,
    locks: ThreadLocks | None = None,
) -> Quart:
    """Build the app; the agent itself is built in before_serving, once per process.

    Args:
        settings: The settings; read from the environment and `.env` when omitted.
        model: A chat model to use instead of ChatOpenAI (tests pass scripted ones).
        locks: Thread claims to use instead of the default ones.

    """
    settings = settings or Settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # One line per model call at INFO would cost more than the access log it duplicates.
    # The MCP session manager's start and stop say nothing the access log does not.
    for chatty in ("httpx", "httpx2", "openai", "mcp.server.streamable_http_manager"):
        logging.getLogger(chatty).setLevel(max(logging.WARNING, logging.getLogger().level))
    app = ServiceQuart(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    app.config["BODY_TIMEOUT"] = settings.body_timeout
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.json.sort_keys = False  # type: ignore[attr-defined]
    install_app_state(app, settings, ThreadIdClock())
    install_observability(app, settings)  # first: its hooks see every request
    install_embedding(app, settings.embed_origin_set)  # CORS: before the key check's hook
    exit_stack = AsyncExitStack()

    @app.before_serving
    async def start_agent() -> None:
        try:
            service = await exit_stack.enter_async_context(
                open_agent_service(settings, model=model, locks=locks)
            )
        except Exception as exc:
            set_startup_failure(app, exc)  # `python -m app` says it in one line and exits
            raise
        set_agent_service(app, service)
        if service.catalog is not None:
            app.extensions["mcp"].watch_catalog(service.catalog)
        assert service.run_store is not None  # opened with the service, runs or not
        events = service.run_store.events
        grace, ttl = settings.stream_resume_grace, settings.run_events_ttl
        gauge = open_streams_gauge(settings)
        set_stream_runs(app, StreamRuns(events, grace, gauge, finished_ttl=ttl))

    @app.after_serving
    async def stop_agent() -> None:
        await exit_stack.aclose()

    for module in ROUTE_MODULES:
        app.register_blueprint(module.blueprint)
    install_api_keys(app, load_api_keys(settings))
    app.extensions["mcp"] = build_mcp_server(
        DataTools(lambda: agent_service_of(app), thread_id_clock_of(app))
    )
    for module in (runs, suggestions, whoami):
        app.register_blueprint(module.blueprint)
    register_error_handlers(app)
    install_openapi(app)
    return app

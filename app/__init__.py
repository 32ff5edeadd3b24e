"""The Quart app: the ask API over the SQL ReAct agent."""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack

from langchain_core.language_models import BaseChatModel
from quart import Quart

from app.errors import register_error_handlers
from app.openapi import install_openapi
from app.routes import ask, ask_stream, conversations, health, legacy_stream, page, runs
from app.stream_runs import StreamRuns
from app.thread_ids import ThreadIdClock
from config import Settings
from react_agent.runs.event_store import InProcessRunEvents
from react_agent.runs.thread_locks import ThreadLocks
from react_agent.service import open_agent_service

MAX_BODY_BYTES = 64 * 1024
"""A question is at most 2000 characters; anything far larger is not a real request."""


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
    for chatty in ("httpx", "httpx2", "openai"):
        logging.getLogger(chatty).setLevel(max(logging.WARNING, logging.getLogger().level))
    app = Quart(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    app.config["BODY_TIMEOUT"] = settings.body_timeout
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["settings"] = settings
    app.extensions["thread_id_clock"] = ThreadIdClock()
    exit_stack = AsyncExitStack()

    @app.before_serving
    async def start_agent() -> None:
        agent = await exit_stack.enter_async_context(
            open_agent_service(settings, model=model, locks=locks)
        )
        app.extensions["agent"] = agent
        store = agent.run_events or InProcessRunEvents(settings.run_events_ttl)
        app.extensions["stream_runs"] = StreamRuns(store, settings.stream_resume_grace)

    @app.after_serving
    async def stop_agent() -> None:
        await exit_stack.aclose()

    app.register_blueprint(ask.blueprint)
    app.register_blueprint(ask_stream.blueprint)
    app.register_blueprint(conversations.blueprint)
    app.register_blueprint(legacy_stream.blueprint)
    app.register_blueprint(health.blueprint)
    app.register_blueprint(page.blueprint)
    app.register_blueprint(runs.blueprint)
    register_error_handlers(app)
    install_openapi(app)
    return app

"""Typed access to what the app keeps in `app.extensions`: settings, agent, streams, clock."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quart import Quart, current_app

if TYPE_CHECKING:  # types only: the ground floor imports nothing above it
    from app.asking.thread_ids import ThreadIdClock
    from app.streaming.runs import StreamRuns
    from config import Settings
    from react_agent.service import AgentService

_SETTINGS = "settings"
_AGENT = "agent"
_STREAM_RUNS = "stream_runs"
_THREAD_ID_CLOCK = "thread_id_clock"
_STARTUP_FAILURE = "startup_failure"


def install_app_state(app: Quart, settings: Settings, clock: ThreadIdClock) -> None:
    """Keep the settings and the thread-id clock on `app` (the rest comes at start-up)."""
    app.extensions[_SETTINGS] = settings
    app.extensions[_THREAD_ID_CLOCK] = clock


def set_stream_runs(app: Quart, runs: StreamRuns) -> None:
    """Keep the stream registry, made at start-up over the run event store, on `app`."""
    app.extensions[_STREAM_RUNS] = runs


def set_agent_service(app: Quart, service: AgentService) -> None:
    """Keep the agent service built at start-up on `app`."""
    app.extensions[_AGENT] = service


def agent_service_of(app: Quart) -> AgentService | None:
    """Return `app`'s agent service, or None before it has started."""
    return app.extensions.get(_AGENT)


def app_settings() -> Settings:
    """Return the current app's settings."""
    return current_app.extensions[_SETTINGS]


def agent_service() -> AgentService:
    """Return the current app's agent service (set in before_serving)."""
    return current_app.extensions[_AGENT]


def stream_runs() -> StreamRuns:
    """Return the current app's registry of streamed runs."""
    return current_app.extensions[_STREAM_RUNS]


def thread_id_clock() -> ThreadIdClock:
    """Return the current app's source of new thread ids."""
    return current_app.extensions[_THREAD_ID_CLOCK]


def thread_id_clock_of(app: Quart) -> ThreadIdClock:
    """Return `app`'s thread-id clock (for code that runs outside a request)."""
    return app.extensions[_THREAD_ID_CLOCK]


def app_settings_of(app: Quart) -> Settings:
    """Return `app`'s settings (for code that runs outside a request)."""
    return app.extensions[_SETTINGS]


def set_startup_failure(app: Quart, error: BaseException) -> None:
    """Keep why the service did not open (Quart's lifespan passes on only its text)."""
    app.extensions[_STARTUP_FAILURE] = error


def startup_failure_of(app: Quart) -> BaseException | None:
    """Return why the service did not open, or None (not tried yet, or opened)."""
    return app.extensions.get(_STARTUP_FAILURE)

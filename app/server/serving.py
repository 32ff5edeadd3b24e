"""Serving the app with Hypercorn in this process: config, the SIGTERM drain, the event loop."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Coroutine
from typing import Any

from hypercorn.asyncio.run import worker_serve
from hypercorn.config import Config, Sockets
from hypercorn.utils import wrap_app

from app import create_app
from app.http.app_state import agent_service_of, startup_failure_of
from app.server.asgi import ServiceASGI
from app.server.binding import bind_sockets
from app.server.opening import OpenedBeforeServing
from config import Settings

MAX_REQUEST_HEAD_BYTES = 256 * 1024
"""Largest request line and headers read; beyond it Hypercorn answers a bare 431.

Hypercorn's default, 16 KiB, is less than a 2000-character Chinese question takes in a
GET query (about 18 KB percent-encoded), and whether it bites depends on how the bytes
arrive. Up to this size a long query reaches the app, which answers with the envelope.
"""


def hypercorn_config(settings: Settings) -> Config:
    """Return Hypercorn's configuration for these settings."""
    config = Config()
    config.bind = [f"{settings.host}:{settings.port}"]
    # Through the logging module, so each line is printed once, in the app's format.
    config.accesslog = logging.getLogger("hypercorn.access")
    config.errorlog = logging.getLogger("hypercorn.error")
    # Hypercorn waits this long for open requests (streams) after it stops accepting.
    config.graceful_timeout = settings.shutdown_grace + 5
    config.h11_max_incomplete_size = MAX_REQUEST_HEAD_BYTES
    # Hypercorn's default backlog (100) overflows under bursts of new streams, and each
    # overflowed connection waits a second for the client's SYN retry. 1024 still
    # overflowed (87 times) when 2,000 streams came at once; the kernel caps it at somaxconn
    # (4096 by default since Linux 5.4).
    config.backlog = 4096
    return config


async def serve_forever(
    settings: Settings,
    sockets: Sockets | None = None,
    on_open: Callable[[], None] | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, then let runs in flight finish and close the agent.

    Args:
        settings: The settings.
        sockets: Listening sockets bound by a supervisor (with several workers); by
            default this process binds HOST:PORT itself, before the app starts.
        on_open: Called once the service is open (a worker tells its supervisor).

    The service opens before Hypercorn accepts a connection (app/server/opening): a
    start-up that fails raises here, and nothing is served.

    Raises:
        AddressUnavailable: HOST:PORT is taken or cannot be used (nothing was started).
        ConfigurationError: A setting is wrong (nothing is served).
        StartupFailure: The service did not open for another reason (nothing is served).

    """
    config = hypercorn_config(settings)
    if sockets is None:
        # Before the app starts: a taken port is then one line, with nothing to unwind.
        sockets = bind_sockets(settings, config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    app = create_app(settings)
    drains: list[asyncio.Task[None]] = []
    front = ServiceASGI(app)
    opened = OpenedBeforeServing(front, lambda: startup_failure_of(app))
    await opened.open()
    if on_open is not None:
        on_open()

    async def drain_on_signal() -> None:
        await stop.wait()
        agent = agent_service_of(app)
        if agent is not None and agent.runner is not None:
            # Runs in the background while Hypercorn waits for the streams to end.
            drain = asyncio.create_task(agent.runner.drain(settings.shutdown_grace))
            drains.append(drain)
            # MCP sessions hold a GET stream open; they end once no tool call is running.
            drain.add_done_callback(lambda _: front.stop_mcp())
        else:
            front.stop_mcp()

    try:
        await worker_serve(
            wrap_app(opened, config.wsgi_max_body_size, None),
            config,
            sockets=sockets,
            shutdown_trigger=drain_on_signal,
        )
    finally:
        await opened.close()  # done already by Hypercorn's lifespan shutdown, unless it failed
    # Held until here so the task is not garbage-collected, and its errors are not lost.
    await asyncio.gather(*drains)


def run_event_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run `main` on uvloop where it is installed (it is on Linux), else on asyncio."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)

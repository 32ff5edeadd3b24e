"""`python -m app`: serve with Hypercorn on HOST:PORT."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Coroutine
from typing import Any

from hypercorn.asyncio.run import worker_serve
from hypercorn.config import Config, Sockets
from hypercorn.utils import wrap_app

from app import create_app
from app.workers import refusal_for_workers, serve_workers
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
    # overflowed connection waits a second for the client's SYN retry.
    config.backlog = 1024
    return config


async def serve_forever(settings: Settings, sockets: Sockets | None = None) -> None:
    """Serve until SIGINT or SIGTERM, then let runs in flight finish and close the agent.

    Args:
        settings: The settings.
        sockets: Listening sockets bound by a supervisor (with several workers); by
            default this process binds HOST:PORT itself.

    """
    config = hypercorn_config(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    app = create_app(settings)

    async def drain_on_signal() -> None:
        await stop.wait()
        agent = app.extensions.get("agent")
        if agent is not None and agent.runner is not None:
            # Runs in the background while Hypercorn waits for the streams to end.
            drain = asyncio.create_task(agent.runner.drain(settings.shutdown_grace))
            app.extensions["drain_task"] = drain

    await worker_serve(
        wrap_app(app, config.wsgi_max_body_size, None),
        config,
        sockets=sockets,
        shutdown_trigger=drain_on_signal,
    )


def run_event_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run `main` on uvloop where it is installed (it is on Linux), else on asyncio."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


def main(argv: list[str] | None = None) -> int:
    """Read the settings (and `--workers N`) and serve with one or N processes."""
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    parser.add_argument(
        "--workers", type=int, help="processes serving HOST:PORT (default: WORKERS, or 1)"
    )
    args = parser.parse_args(argv)
    settings = Settings()
    if args.workers is not None:
        settings = settings.model_copy(update={"workers": args.workers})
    refusal = refusal_for_workers(settings)
    if refusal is not None:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    if settings.workers <= 1:
        run_event_loop(serve_forever(settings))
        return 0
    logging.basicConfig(level=settings.log_level.upper())
    return serve_workers(settings, hypercorn_config(settings))


if __name__ == "__main__":
    sys.exit(main())

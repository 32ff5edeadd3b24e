"""Opening the service before Hypercorn serves: a start that fails stops the process, never half."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable
from typing import Any

from config.masking import mask_url_password
from react_agent.errors import ConfigurationError


class StartupFailure(Exception):
    """The service did not open for a reason other than a setting; the message is one line."""


class OpenedBeforeServing:
    """ASGI wrapper: runs the app's lifespan start-up itself, before Hypercorn accepts anyone.

    Hypercorn looks at the lifespan's outcome only once its start-up event is set, and the
    failure ends the lifespan task a few loop turns later (the MCP sessions' task group
    unwinds first): it then serves a half-started app, every route a 500. Here `open()`
    starts the app's lifespan and returns once the service is open, or raises why not;
    Hypercorn's own lifespan is answered from it (its shutdown runs the app's).

    Once open, every object alive is moved to GC's permanent set (`gc.freeze()`): what
    start-up builds (modules, the compiled graph, pools, schemas: some 275,000 objects)
    lives as long as the process, and left in the collector's generations every full
    collection, frequent with thousands of streams open, walks it again (what CPython's
    documentation advises for long-lived servers). Only `python -m app` opens the app this
    way: a test process that builds many apps keeps collecting them.

    Args:
        app: The ASGI app (ServiceASGI).
        failure_of: Returns the exception the app's start-up raised (Quart's lifespan
            passes on only its text).

    """

    def __init__(self, app: Any, failure_of: Callable[[], BaseException | None]) -> None:
        self.app = app
        self.failure_of = failure_of
        self._to_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Run the app's start-up; return once it is open (and what it built is frozen).

        Raises:
            ConfigurationError: A setting is wrong (the app's own error, one line).
            StartupFailure: Anything else went wrong (its type and text, one line).

        """
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}}
        self._task = asyncio.create_task(self.app(scope, self._to_app.get, self._answers.put))
        await self._to_app.put({"type": "lifespan.startup"})
        answer = await self._answer()
        if answer.get("type") == "lifespan.startup.complete":
            gc.collect()
            gc.freeze()
            return
        task_error = self._task.exception() if self._task.done() else None
        await self._end()
        error = self.failure_of() or task_error
        if isinstance(error, ConfigurationError):
            raise error
        if error is None:
            text = str(answer.get("message") or "the app's lifespan ended before it started")
            raise StartupFailure(f"the service did not start: {mask_url_password(text)}")
        raise StartupFailure(
            f"the service did not start: {type(error).__name__}: {mask_url_password(str(error))}"
        ) from error

    async def close(self) -> None:
        """Run the app's shutdown (close the agent, its pools) and wait for it."""
        if self._task is None or self._task.done():
            return
        await self._to_app.put({"type": "lifespan.shutdown"})
        await self._answer()
        await self._end()

    async def _answer(self) -> dict[str, Any]:
        """Return the app's next lifespan message, or an empty one if its lifespan ended."""
        assert self._task is not None
        waiting = asyncio.ensure_future(self._answers.get())
        await asyncio.wait({self._task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if waiting.done():
            return waiting.result()
        waiting.cancel()
        return {}

    async def _end(self) -> None:
        """Stop the app's lifespan task (after a failure it waits for a shutdown never sent)."""
        assert self._task is not None
        if not self._task.done():
            self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass connections on; answer Hypercorn's lifespan from the app's, opened already."""
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

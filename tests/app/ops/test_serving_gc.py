"""`python -m app` moves what start-up built out of the collector's generations, once started."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from app.server.serving import FreezeAfterStartup


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


async def test_objects_built_at_start_up_are_frozen_once_startup_completes(
    unfrozen: None,
) -> None:
    built: list[Any] = []
    frozen_before_complete: list[int] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "lifespan"
        await receive()  # lifespan.startup
        built.append({"graph": [object() for _ in range(1000)]})
        frozen_before_complete.append(gc.get_freeze_count())
        await send({"type": "lifespan.startup.complete"})

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "lifespan.startup"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await FreezeAfterStartup(app)({"type": "lifespan"}, receive, send)

    assert sent == [{"type": "lifespan.startup.complete"}]
    assert frozen_before_complete == [0]
    # Everything alive, the app's start-up objects included, is now in the permanent set.
    assert gc.get_freeze_count() >= 1000


async def test_requests_pass_through_without_freezing(unfrozen: None) -> None:
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])
        await send({"type": "http.response.start", "status": 204, "headers": []})

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await FreezeAfterStartup(app)({"type": "http"}, None, send)

    assert seen == ["http"] and sent[0]["status"] == 204
    assert gc.get_freeze_count() == 0

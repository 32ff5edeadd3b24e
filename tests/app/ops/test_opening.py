"""`python -m app` opens the service before serving, then freezes what start-up built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from app.server.opening import OpenedBeforeServing, StartupFailure
from react_agent.errors import ConfigurationError


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def lifespan_app(start: Any) -> Any:
    """Return an ASGI app whose lifespan start-up runs `start()` (Quart's protocol)."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await send({"type": "http.response.start", "status": 204, "headers": []})
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    start()
                except Exception as error:
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                else:
                    await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    return app


async def test_objects_built_at_start_up_are_frozen_once_open(unfrozen: None) -> None:
    built: list[Any] = []
    frozen_before_complete: list[int] = []

    def start() -> None:
        built.append({"graph": [object() for _ in range(1000)]})
        frozen_before_complete.append(gc.get_freeze_count())

    opened = OpenedBeforeServing(lifespan_app(start), lambda: None)
    await opened.open()

    assert frozen_before_complete == [0]
    # Everything alive, the app's start-up objects included, is now in the permanent set.
    assert gc.get_freeze_count() >= 1000
    await opened.close()


async def test_hypercorns_lifespan_is_answered_from_the_opened_app(unfrozen: None) -> None:
    shut: list[bool] = []
    opened = OpenedBeforeServing(lifespan_app(lambda: None), lambda: None)
    await opened.open()
    inbox = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return inbox.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        shut.append(opened._task is not None and opened._task.done())

    await opened({"type": "lifespan"}, receive, send)

    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert shut == [False, True]  # the app's own shutdown ran before Hypercorn heard of it


async def test_requests_pass_through_without_freezing(unfrozen: None) -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    opened = OpenedBeforeServing(lifespan_app(lambda: None), lambda: None)
    await opened({"type": "http"}, None, send)

    assert sent[0]["status"] == 204
    assert gc.get_freeze_count() == 0


async def test_a_configuration_error_at_start_up_is_raised_as_itself(unfrozen: None) -> None:
    error = ConfigurationError("POLICY_FILE", "POLICY_FILE: policy.yaml:3: unknown key 'rol'")

    def start() -> None:
        raise error

    with pytest.raises(ConfigurationError) as raised:
        await OpenedBeforeServing(lifespan_app(start), lambda: error).open()

    assert raised.value is error
    assert gc.get_freeze_count() == 0


async def test_another_failure_is_one_line_with_its_type_and_masked_urls(unfrozen: None) -> None:
    error = RuntimeError("cannot reach postgresql://app:s3cret@db/x")

    def start() -> None:
        raise error

    with pytest.raises(StartupFailure) as raised:
        await OpenedBeforeServing(lifespan_app(start), lambda: error).open()

    assert str(raised.value).startswith("the service did not start: RuntimeError: ")
    assert "s3cret" not in str(raised.value) and "\n" not in str(raised.value)


async def test_a_lifespan_that_dies_before_answering_is_a_failure_with_its_error(
    unfrozen: None,
) -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        raise OSError("the MCP session manager could not start")

    with pytest.raises(StartupFailure, match="OSError: the MCP session manager could not start"):
        await OpenedBeforeServing(app, lambda: None).open()

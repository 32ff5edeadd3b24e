"""Reading Server-Sent Events in tests with httpx-sse, a real SSE parser."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import EventSource, aconnect_sse

STREAM_PATH = "/api/v0/ask_react_agent_stream"


@dataclass
class StreamEvent:
    """One received event: its id, the envelope, and when it arrived (monotonic seconds)."""

    id: str
    envelope: dict[str, Any]
    arrived: float

    @property
    def type(self) -> str:
        """Return the event's `data.type`."""
        return self.envelope["data"]["type"]

    @property
    def data(self) -> dict[str, Any]:
        """Return the envelope's data."""
        return self.envelope["data"]


@asynccontextmanager
async def open_stream(
    http: httpx.AsyncClient, method: str = "POST", **request: Any
) -> AsyncIterator[tuple[httpx.Response, AsyncIterator[StreamEvent]]]:
    """Open the stream endpoint; yield the response and an iterator of its events."""
    async with aconnect_sse(http, method, STREAM_PATH, **request) as source:
        yield source.response, _events(source)


async def _events(source: EventSource) -> AsyncIterator[StreamEvent]:
    async for sse in source.aiter_sse():
        yield StreamEvent(sse.id, json.loads(sse.data), time.monotonic())


async def collect_stream(
    http: httpx.AsyncClient, method: str = "POST", **request: Any
) -> list[StreamEvent]:
    """Open the stream, read it to the end and return every event."""
    async with open_stream(http, method, **request) as (response, events):
        assert response.status_code == 200, response.text
        return [event async for event in events]

"""One streamed question of the soak, read to `end` and classified by how it ended."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import aconnect_sse

STREAM_PATH = "/api/v0/ask_react_agent_stream"
QUESTION = "每个地区的销售额是多少"


@dataclass
class StreamRecord:
    """How one streamed question ended, and how long it took (seconds)."""

    outcome: str
    latency: float
    first_event: float | None = None
    """Seconds to the first event (`started`): how soon the service took the question."""


@dataclass
class LoadState:
    """What the clients share: their records and how many streams are open now."""

    records: list[StreamRecord] = field(default_factory=list)
    active: int = 0
    started: int = 0


async def ask_streamed(
    http: httpx.AsyncClient, body: dict[str, Any], timeout: float
) -> tuple[StreamRecord, str | None]:
    """Ask one streamed question, read it to `end`; return its record and thread id."""
    started = time.monotonic()
    first_event: float | None = None
    thread_id: str | None = None
    final: dict[str, Any] | None = None
    outcome = "broken:no_end"
    try:
        async with (
            asyncio.timeout(timeout),
            aconnect_sse(http, "POST", STREAM_PATH, json=body) as source,
        ):
            if source.response.status_code != 200:
                outcome = f"broken:http_{source.response.status_code}"
            else:
                async for sse in source.aiter_sse():
                    envelope = json.loads(sse.data)
                    data = envelope["data"]
                    first_event = first_event or time.monotonic() - started
                    if data["type"] == "started":
                        thread_id = data["thread_id"]
                    elif data["type"] in ("completed", "error"):
                        final = envelope
                    elif data["type"] == "end":
                        outcome = classify_final(final)
                        break
    except TimeoutError:
        outcome = "broken:timeout"
    except (httpx.HTTPError, json.JSONDecodeError, KeyError) as exc:
        outcome = f"broken:{type(exc).__name__}"
    return StreamRecord(outcome, time.monotonic() - started, first_event), thread_id


def classify_final(final: dict[str, Any] | None) -> str:
    """Name the outcome of a stream that reached `end` after the event `final`."""
    if final is None:
        return "broken:end_without_result"
    data = final["data"]
    if data["type"] == "completed":
        return "completed" if final["code"] == 200 and data.get("response") else "broken:empty"
    clear = (
        final["code"] >= 400
        and isinstance(data.get("error_type"), str)
        and isinstance(data.get("can_retry"), bool)
    )
    return f"error:{data['error_type']}" if clear else "broken:unclear_error"

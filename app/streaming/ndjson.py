"""NDJSON framing: one JSON object per line, for clients that read a stream with fetch()."""

from __future__ import annotations

import json
from typing import Any

NDJSON_MEDIA_TYPE = "application/x-ndjson"

NDJSON_HEADERS = {
    "Content-Type": f"{NDJSON_MEDIA_TYPE}; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}

NDJSON_HEARTBEAT = {"type": "ping"}
"""The keep-alive line sent while nothing happens; it has no `data`, so it is no event."""


def encode_ndjson_line(data: dict[str, Any], *, event_id: str | None = None) -> bytes:
    """Encode one object as a line; `event_id` (the SSE `id:`) goes in as the `id` field.

    JSON never contains a raw newline (they are escaped), so each object is one line.
    """
    line = {"id": event_id, **data} if event_id is not None else data
    return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def encode_ndjson_heartbeat() -> bytes:
    """Encode the keep-alive line `{"type":"ping"}`."""
    return encode_ndjson_line(NDJSON_HEARTBEAT)

"""Server-Sent Events framing: events, comments and the stream's headers."""

from __future__ import annotations

import json
from typing import Any

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}


def encode_sse_event(
    data: dict[str, Any], *, event_id: str | None = None, retry_ms: int | None = None
) -> bytes:
    """Encode one event: an optional `id:` and `retry:`, then one `data:` line of JSON.

    JSON never contains a raw newline (they are escaped), so one `data:` line is enough.
    """
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if retry_ms is not None:
        lines.append(f"retry: {retry_ms}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def encode_sse_comment(text: str) -> bytes:
    """Encode a comment line, which clients ignore; it keeps idle connections open."""
    return f": {text}\n\n".encode()

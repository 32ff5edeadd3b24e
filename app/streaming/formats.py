"""The stream's two wire formats, Server-Sent Events and NDJSON, and how a request picks one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from app.streaming.ndjson import (
    NDJSON_HEADERS,
    NDJSON_MEDIA_TYPE,
    encode_ndjson_heartbeat,
    encode_ndjson_line,
)
from app.streaming.sse import SSE_HEADERS, encode_sse_comment, encode_sse_event


class EventEncoder(Protocol):
    """Encodes one envelope with its event id (and, for SSE, the reconnect delay)."""

    def __call__(
        self, data: dict[str, Any], *, event_id: str | None = None, retry_ms: int | None = None
    ) -> bytes:
        """Return the envelope's bytes on the wire."""
        ...


@dataclass(frozen=True)
class StreamFormat:
    """How a stream's events, heartbeats and headers look on the wire."""

    name: str
    headers: dict[str, str]
    encode_event: EventEncoder
    heartbeat: bytes


def _ndjson_event(
    data: dict[str, Any], *, event_id: str | None = None, retry_ms: int | None = None
) -> bytes:
    # NDJSON has no reconnect delay: a fetch() client decides itself when to come back.
    return encode_ndjson_line(data, event_id=event_id)


SSE_FORMAT = StreamFormat("sse", SSE_HEADERS, encode_sse_event, encode_sse_comment("ping"))
NDJSON_FORMAT = StreamFormat("ndjson", NDJSON_HEADERS, _ndjson_event, encode_ndjson_heartbeat())


def choose_stream_format(accept: str | None, format_arg: str | None) -> StreamFormat:
    """Return NDJSON for `?format=ndjson` or an Accept naming application/x-ndjson, else SSE.

    Args:
        accept: The request's Accept header.
        format_arg: The `format` query parameter (`ndjson` or `sse`); it wins over Accept.

    """
    if format_arg:
        return NDJSON_FORMAT if format_arg.strip().lower() == "ndjson" else SSE_FORMAT
    media_types = [part.split(";")[0].strip().lower() for part in (accept or "").split(",")]
    return NDJSON_FORMAT if NDJSON_MEDIA_TYPE in media_types else SSE_FORMAT

"""The API's timestamp format, shared by messages, events and responses."""

from __future__ import annotations

from datetime import datetime


def now_timestamp() -> str:
    """Return local time with milliseconds, e.g. 2025-01-31T10:32:15.456."""
    return datetime.now().isoformat(timespec="milliseconds")


def local_timestamp(moment: str | datetime | None) -> str | None:
    """Return an ISO time (e.g. a checkpoint's UTC `ts`) in the API's local format."""
    if moment is None:
        return None
    parsed = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone().replace(tzinfo=None)
    return parsed.isoformat(timespec="milliseconds")

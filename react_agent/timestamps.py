"""The service's two timestamp formats: the API's ISO time, and the memory's stored time."""

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


def storage_timestamp() -> str:
    """Return local time as the memory stores it, `YYYY-MM-DD HH:MM:SS` (sorts as text).

    The ratings and examples keep the replaced service's format: their `create_time` and
    `update_time` are answered as stored, and its clients read them that way.
    """
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S")

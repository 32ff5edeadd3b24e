"""How the memory writes times: local `YYYY-MM-DD HH:MM:SS`, which sorts as text."""

from __future__ import annotations

from datetime import datetime


def storage_timestamp() -> str:
    """Return the current local time as the memory stores it."""
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S")

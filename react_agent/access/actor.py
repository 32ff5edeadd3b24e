"""Who is asking: resolved once per request by the accept path every surface uses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Actor:
    """The asking user: id, the API key's id (never its secret), roles and attributes."""

    user_id: str
    key_id: str | None = None
    roles: tuple[str, ...] = ()
    attributes: Mapping[str, Any] = field(default_factory=dict)

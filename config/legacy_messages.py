"""The replaced service's zh-CN `message` and top-level `error` texts; its clients match on them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LEGACY_MESSAGES_PATH = Path(__file__).with_name("legacy_messages.json")


@dataclass(frozen=True)
class LegacyText:
    """The old service's envelope `message` and top-level `error` for one fault."""

    message: str
    error: str


@cache
def _load() -> dict[str, dict[str, str]]:
    return json.loads(LEGACY_MESSAGES_PATH.read_text(encoding="utf-8"))


def legacy_text(error_type: str, **params: object) -> LegacyText | None:
    """Return the old texts of an error code with `params` formatted in, or None if it has none."""
    entry = _load().get(error_type)
    if entry is None:
        return None
    try:
        error = entry["error"].format(**params)
    except (KeyError, IndexError):
        error = entry["error"]
    return LegacyText(entry["message"], error)

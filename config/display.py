"""The node display map (name and icon of each graph node), read from node_display.json."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from config.i18n import resolve_lang

DISPLAY_MAP_PATH = Path(__file__).with_name("node_display.json")
GENERIC_ENTRY = "*"


@cache
def load_display_map() -> dict[str, dict[str, dict[str, str]]]:
    """Return the display map by language, then node name."""
    return json.loads(DISPLAY_MAP_PATH.read_text(encoding="utf-8"))


def node_display(node: str, lang: str | None = None) -> dict[str, str]:
    """Return `{"display_name", "icon"}` for a node; unknown nodes get the generic entry."""
    entries = load_display_map()[resolve_lang(lang)]
    return dict(entries.get(node) or entries[GENERIC_ENTRY])

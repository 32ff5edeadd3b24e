"""Human messages in zh-CN and en-US, read from messages.json."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

MESSAGES_PATH = Path(__file__).with_name("messages.json")
DEFAULT_LANG = "zh-CN"
SUPPORTED_LANGS = ("zh-CN", "en-US")


@cache
def load_messages() -> dict[str, dict[str, str]]:
    """Return the message templates by key, then language."""
    return json.loads(MESSAGES_PATH.read_text(encoding="utf-8"))


def resolve_lang(lang: str | None = None, accept_language: str | None = None) -> str:
    """Pick zh-CN or en-US from an explicit `lang`, else an Accept-Language header.

    Args:
        lang: The request's `lang` value; it wins when it names a supported language.
        accept_language: The Accept-Language header, honouring q-values.

    """
    for candidate in _candidates(lang, accept_language):
        primary = candidate.split("-")[0].lower()
        if primary == "zh":
            return "zh-CN"
        if primary == "en":
            return "en-US"
    return DEFAULT_LANG


def _candidates(lang: str | None, accept_language: str | None) -> list[str]:
    explicit = [lang.strip()] if lang and lang.strip() else []
    if not accept_language:
        return explicit
    weighted: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and quality > 0:
            weighted.append((-quality, position, tag))
    return explicit + [tag for _, _, tag in sorted(weighted)]


def localize(key: str, lang: str | None = None, **params: object) -> str:
    """Render message `key` in `lang`, formatting `params` into it.

    Unknown keys fall back to the generic error message, so a new error code can never
    break a response.
    """
    templates = load_messages().get(key) or load_messages()["INTERNAL_ERROR"]
    template = templates.get(resolve_lang(lang)) or templates[DEFAULT_LANG]
    try:
        return template.format(**params)
    except (KeyError, IndexError):
        return template

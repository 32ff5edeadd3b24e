"""resolve_lang and localize: which language a request gets, and its messages."""

from __future__ import annotations

import pytest

from config import localize, resolve_lang


@pytest.mark.parametrize(
    ("lang", "accept_language", "expected"),
    [
        (None, None, "zh-CN"),
        ("en-US", None, "en-US"),
        ("en", None, "en-US"),
        ("EN-gb", None, "en-US"),
        ("zh-TW", "en-US", "zh-CN"),
        ("  ", "en-US,en;q=0.9", "en-US"),
        ("fr-FR", "en-US", "en-US"),
        ("fr-FR", None, "zh-CN"),
        (None, "fr-FR, en;q=0.8, zh;q=0.9", "zh-CN"),
        (None, "zh;q=0.5, en;q=0.7", "en-US"),
        (None, "en;q=0, zh;q=0.1", "zh-CN"),
        (None, "en;q=oops, zh;q=0.1", "zh-CN"),
        (None, "de-DE", "zh-CN"),
    ],
)
def test_resolve_lang_prefers_lang_then_accept_language_by_quality(lang, accept_language, expected):
    assert resolve_lang(lang, accept_language) == expected


def test_localize_formats_params_into_the_message_of_the_language():
    assert localize("QUESTION_TOO_LONG", "en-US", limit=2000) == (
        "The question must be at most 2000 characters"
    )
    assert "2000" in localize("QUESTION_TOO_LONG", "zh-CN", limit=2000)


def test_an_unknown_message_key_falls_back_to_the_generic_error():
    assert localize("NO_SUCH_KEY", "en-US") == "Internal server error"

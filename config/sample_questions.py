"""Starter questions about the embedded sample database, per language (data, not code)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from config.i18n import DEFAULT_LANG

SAMPLE_QUESTIONS_PATH = Path(__file__).with_name("sample_questions.json")


@cache
def _load() -> dict[str, list[str]]:
    return json.loads(SAMPLE_QUESTIONS_PATH.read_text(encoding="utf-8"))


def sample_questions(lang: str) -> list[str]:
    """Return the sample database's starter questions in `lang` (the default when unknown)."""
    questions = _load()
    return list(questions.get(lang) or questions[DEFAULT_LANG])

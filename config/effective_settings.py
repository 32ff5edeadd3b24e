"""The settings in effect, as `.env` lines with every secret masked (`--print-config`)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings

from config.settings_doc import env_name

MASK = "********"
"""What a secret is shown as; never a prefix or the length of the secret."""

_KEY_VALUE_PASSWORD = re.compile(r"(?i)\b(password|passwd|pwd)=[^\s;&]*")
"""`password=…` inside a libpq-style DSN or a query string."""

_URL_PASSWORD = re.compile(r"(?s)(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*):.*@")
"""`scheme://user:secret@`, up to the last `@`: a password holding an unencoded `@`, `/` or
space is masked whole (at worst a query string with an `@` is masked too, never too little)."""

_SECRET_NAME = re.compile(r"(?i)(password|secret|api_key|_token$)")
"""Field names whose plain-`str` values are secrets all the same (SecretStr is the rule)."""


def mask_url_password(value: str) -> str:
    """Return the text with URL passwords (`scheme://user:secret@host`) and `password=` masked."""
    masked = _KEY_VALUE_PASSWORD.sub(lambda match: f"{match.group(1)}={MASK}", value)
    return _URL_PASSWORD.sub(lambda match: f"{match.group('head')}:{MASK}@", masked)


def display_value(value: object) -> str:
    """Return a setting's value as it would be written in `.env`, secrets masked."""
    if value is None:
        return ""
    if isinstance(value, SecretStr):
        return MASK if value.get_secret_value() else ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Path):
        return str(value)
    return mask_url_password(str(value))


def effective_settings_lines(settings: BaseSettings) -> list[str]:
    """Return one `NAME=value` line per setting in effect, in the order of the fields."""
    lines = []
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if _SECRET_NAME.search(name) and value:
            value = SecretStr(str(value))
        lines.append(f"{env_name(name, field)}={display_value(value)}")
    return lines

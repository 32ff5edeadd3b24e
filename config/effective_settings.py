"""The settings in effect, as `.env` lines with every secret masked (`--print-config`)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings

from config.masking import MASK, mask_url_password
from config.settings_doc import env_name

_SECRET_NAME = re.compile(r"(?i)(password|secret|api_key|_token$)")
"""Field names whose plain-`str` values are secrets all the same (SecretStr is the rule)."""


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

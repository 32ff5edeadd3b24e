"""The one masking of secrets in text: URL passwords and `password=` values, wherever shown."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

MASK = "********"
"""What a secret is shown as; never a prefix or the length of the secret."""

_KEY_VALUE_PASSWORD = re.compile(r"(?i)\b(password|passwd|pwd)=[^\s;&]*")
"""`password=…` inside a libpq-style DSN or a query string."""

_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*):.*@")
"""`scheme://user:secret@`, up to the last `@` of the line: a password holding an unencoded
`@`, `/` or space is masked whole (at worst a query string with an `@` is masked too, never
too little); a log line or a traceback is masked line by line."""


def mask_url_password(value: str) -> str:
    """Return the text with URL passwords (`scheme://user:secret@host`) and `password=` masked."""
    masked = _KEY_VALUE_PASSWORD.sub(lambda match: f"{match.group(1)}={MASK}", value)
    return _URL_PASSWORD.sub(lambda match: f"{match.group('head')}:{MASK}@", masked)


def url_password(url: str | None) -> str | None:
    """Return the password of `scheme://user:secret@host` (None without one), to mask it alone."""
    if not url:
        return None
    try:
        return urlsplit(url).password or None
    except ValueError:
        return None

"""Every log line with URL passwords and the configured secrets masked, whatever its format."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from config.masking import MASK, mask_url_password


class SecretRedaction(logging.Filter):
    """Masks URL passwords (config.masking) and the configured secrets in each record.

    Installed on the root logger's handlers, so it sees every record they write, the
    libraries' (Hypercorn, psycopg, httpx) too, and the text of its traceback.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret that contains another is masked whole.
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        """Return `text` with URL passwords, `password=` values and every secret masked."""
        if "://" in text or "=" in text:
            text = mask_url_password(text)
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message (and its traceback's text); never drop the record."""
        try:
            message = record.getMessage()
        except Exception:  # a broken format is the handler's to report
            return True
        masked = self.redact(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and record.exc_text is None:
            record.exc_text = self.redact(logging.Formatter().formatException(record.exc_info))
        return True


def install_log_redaction(secrets: Iterable[str]) -> None:
    """Mask secrets in what every handler of the root logger writes (replacing an earlier one)."""
    redaction = SecretRedaction(secrets)
    for handler in logging.getLogger().handlers:
        for old in [f for f in handler.filters if isinstance(f, SecretRedaction)]:
            handler.removeFilter(old)
        handler.addFilter(redaction)

"""LOG_FORMAT=json: one JSON object per line, with the ids of the request or run it is about.

Every line carries time, level, logger and message, and whichever of run_id,
thread_id, user_id and trace_id are known where it was logged
(react_agent/log_context). Secrets never appear: `api_key=` query values are masked by
the API keys' own redaction, and the configured secrets (API keys, the LLM key) are
masked wherever they would appear in a message or a traceback.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import UTC, datetime

from app.http.auth import redact_query_key
from react_agent.log_context import current_log_ids

MASK = "***"


class JsonLogFormatter(logging.Formatter):
    """Formats a record as one JSON object on one line (see the module docstring)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret that contains another is masked whole.
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def format(self, record: logging.LogRecord) -> str:
        """Return the record as JSON: time, level, logger, message, ids, exception."""
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": self.redact(record.getMessage()),
            **current_log_ids(),
        }
        if record.exc_info:
            line["exception"] = self.redact(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False, default=str)

    def redact(self, text: str) -> str:
        """Return `text` with `api_key=` values and every configured secret masked."""
        text = redact_query_key(text)
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text


def use_json_logs(secrets: Iterable[str]) -> None:
    """Make every handler of the root logger write JSON lines (one handler if it has none)."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
    formatter = JsonLogFormatter(secrets)
    for handler in root.handlers:
        handler.setFormatter(formatter)

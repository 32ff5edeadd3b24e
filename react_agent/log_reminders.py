"""Logging a lasting trouble readably: its start once, a reminder at most once a minute, its end."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

REMIND_EVERY = 60.0
"""Seconds between two reminders of a trouble that lasts."""
MAX_TROUBLES = 256
"""Troubles remembered at once; beyond, the one written longest ago is forgotten."""


class TroubleLog:
    """Tells a logger of troubles by key: a new one (or a new text) at once, then reminders.

    A trouble that repeats many times a second (a PostgreSQL that is down, a policy file
    deleted under a busy service) writes one warning when it starts or its text changes,
    then one reminder (with how many times it repeated) at most every `remind_every`
    seconds, and one line when it is over. Safe to call from several threads.

    Args:
        logger: Where the lines go.
        remind_every: Seconds between reminders of a trouble that lasts.
        clock: Monotonic seconds (tests pass their own).

    """

    def __init__(
        self,
        logger: logging.Logger,
        remind_every: float = REMIND_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.remind_every = remind_every
        self.clock = clock
        self._lock = threading.Lock()
        self._troubles: dict[str, tuple[str, float, int]] = {}
        """Key → (its text, when it was last written, repeats since)."""

    def trouble(self, key: str, text: str, level: int = logging.WARNING) -> None:
        """Say that `key` is in trouble: written now if new or changed, else as a reminder."""
        repeats = self.due(key, text)
        if repeats is None:
            return
        if repeats:
            self.logger.log(level, "%s (still; %d times since the last line)", text, repeats)
        else:
            self.logger.log(level, "%s", text)

    def due(self, key: str, text: str) -> int | None:
        """Count one more `key` trouble; return None to stay silent, else its repeats to tell.

        0: a new trouble (or a new text) to write as it is; more: a reminder, after that
        many repeats since the last line.
        """
        now = self.clock()
        with self._lock:
            known = self._troubles.get(key)
            if known is not None and known[0] == text and now - known[1] < self.remind_every:
                self._troubles[key] = (text, known[1], known[2] + 1)
                return None
            self._troubles[key] = (text, now, 0)
            if len(self._troubles) > MAX_TROUBLES:
                oldest = min(self._troubles, key=lambda k: self._troubles[k][1])
                del self._troubles[oldest]
        return known[2] + 1 if known is not None and known[0] == text else 0

    def over(self, key: str, text: str) -> None:
        """Say that `key`'s trouble is over (written once, only if there was one)."""
        with self._lock:
            known = self._troubles.pop(key, None)
        if known is not None:
            self.logger.info("%s", text)

    def in_trouble(self, key: str) -> bool:
        """Whether `key` has a trouble not yet over."""
        with self._lock:
            return key in self._troubles


class RepeatedWarnings(logging.Filter):
    """A logger's filter: a library's repeated warning (same text) passes as TroubleLog says.

    For warnings we do not write ourselves (psycopg's pool retrying a server that is down).
    """

    def __init__(self, remind_every: float = REMIND_EVERY) -> None:
        super().__init__()
        self.troubles = TroubleLog(logging.getLogger(__name__), remind_every)

    def filter(self, record: logging.LogRecord) -> bool:
        """Let the first of a run of equal warnings through, then one a minute."""
        if record.levelno < logging.WARNING:
            return True
        text = record.getMessage()
        repeats = self.troubles.due(text, text)
        if repeats is None:
            return False
        if repeats:
            record.msg, record.args = f"{text} (still; {repeats} times since the last line)", None
        return True


_LIBRARY_FILTER = RepeatedWarnings()


def quiet_repeated_warnings(*logger_names: str) -> None:
    """Let these libraries' loggers write a repeated warning once, then once a minute."""
    for name in logger_names:
        library = logging.getLogger(name)
        if _LIBRARY_FILTER not in library.filters:
            library.addFilter(_LIBRARY_FILTER)

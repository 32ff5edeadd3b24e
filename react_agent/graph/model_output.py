"""What the model wrote, judged as it arrives: cut at its length bound, or repeating itself."""

from __future__ import annotations

from collections import Counter

from react_agent.errors import ServiceError

MAX_PERIOD = 256
"""Longest repeated unit (characters) the periodic rule looks for."""
MIN_REPEATS = 8
"""A unit repeated this many times in a row at the end of the text is a loop..."""
MIN_SPAN = 256
"""...when the repetition also covers at least this many characters."""
MIN_LINE_CHARS = 8
"""Lines shorter than this (table rules, blank lines, short list items) are not counted."""
MAX_SAME_LINE = 16
"""The same line (of MIN_LINE_CHARS or more) written this many times is a loop too."""
CHECK_EVERY = 64
"""Characters streamed between two checks of a growing text."""


def repeating(text: str) -> bool:
    """Return whether `text` shows degenerate repetition (a simple, conservative rule).

    Two signs, either enough: the text ends with one unit of 1 to MAX_PERIOD characters
    written MIN_REPEATS or more times in a row over at least MIN_SPAN characters
    ("the the the …", a line or a sentence again and again); or one line of
    MIN_LINE_CHARS or more appears MAX_SAME_LINE times. Answers, tables and SQL whose
    rows differ do neither.
    """
    return _periodic_tail(text) or _same_line_again(text)


def _periodic_tail(text: str) -> bool:
    for period in range(1, MAX_PERIOD + 1):
        span = max(MIN_SPAN, MIN_REPEATS * period)
        if span > len(text):
            break
        tail = text[-span:]
        unit = tail[-period:]
        # A text that is periodic with this period ends with copies of its last `period` chars.
        whole, rest = divmod(span, period)
        if tail == unit[period - rest :] + unit * whole:
            return True
    return False


def _same_line_again(text: str) -> bool:
    if text.count("\n") < MAX_SAME_LINE:
        return False
    lines = Counter(line.strip() for line in text.splitlines())
    return any(
        count >= MAX_SAME_LINE and len(line) >= MIN_LINE_CHARS for line, count in lines.items()
    )


class RepetitionWatch:
    """Follows a streamed answer and says when it has started to repeat itself."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._checked = 0

    def add(self, piece: str) -> bool:
        """Add a streamed piece of text; return whether the text so far is repeating."""
        if not piece:
            return False
        self._parts.append(piece)
        self._size += len(piece)
        if self._size - self._checked < CHECK_EVERY:
            return False
        self._checked = self._size
        text = "".join(self._parts)
        self._parts = [text]
        return repeating(text)

    def text(self) -> str:
        """Return the text followed so far."""
        return "".join(self._parts)


def repetition_fault(text: str) -> ServiceError:
    """Return the error of a model caught repeating itself (the user is told in words)."""
    return ServiceError(
        503,
        "LLM_REPEATING",
        f"the model kept repeating itself and was stopped after {len(text)} characters "
        f"(…{text[-80:]!r})",
    )


def length_fault(max_tokens: int | None) -> ServiceError:
    """Return the error of an answer the server cut at its length bound (finish_reason length)."""
    bound = f"LLM_MAX_TOKENS={max_tokens}" if max_tokens else "the server's own bound"
    return ServiceError(
        503,
        "LLM_ANSWER_TOO_LONG",
        f"the model's reply was cut at its length bound ({bound}; finish_reason: length)",
        max_tokens=max_tokens or "",
    )

"""A database's error text without data: quoted values, numbers and foreign words redacted.

An error raised while a row is evaluated can quote that row's values (`invalid input
syntax for type integer: "…"`, `Duplicate entry '…'`, `XPATH syntax error: '…'`,
`Could not convert string '…'`, `Date out of range: …`). Every text a backend turns into
QueryFailed passes here first, so no model, user, log or audit record reads a value.

The rule: the message's skeleton (its kind, the words the server writes) stays, and so does
whatever the statement itself says — a quoted text made only of the statement's own words
(`column "regoin" does not exist`, `syntax error at or near "FORM"`) is kept, so the model
can repair its SQL. Redacted to `…`: every other quoted text, every number (except a
position: `at position 5`, `LINE 1`), every word in another script than ASCII that the
statement does not contain, and what follows the markers after which engines echo a value
unquoted (DuckDB's `Input:`, RE2's `missing ):`). The statement's string literals do not
count as its words: a value equal to one is still redacted.
"""

from __future__ import annotations

import re

REDACTED = "…"
_HIDDEN = "\x00"  # stands for a redaction until the end, so later passes skip it
_SETTLED_QUOTES = str.maketrans({'"': "\x02", "'": "\x03", "`": "\x04"})
_QUOTES_BACK = str.maketrans({"\x02": '"', "\x03": "'", "\x04": "`"})

# A quoted text: opening quote, then up to a closing quote of the same kind that is not
# followed by a word character (`'O'Brien'` is one value, not `'O'` then `Brien'`).
_QUOTED = re.compile(
    r"""(?<!\w)(?P<q>["'`])(?P<text>.*?)(?P=q)(?!\w)|“(?P<curly>[^”]*)”""", re.DOTALL
)
# A quote left over (not an apostrophe inside a word, as in "can't"): an unbalanced value.
_STRAY_QUOTE = re.compile(r"""(?:(?<!\w)["'`“”]|["'`“”](?!\w)).*""", re.DOTALL)
_NUMBER = re.compile(r"(?<![\w\x00])\d[\w.:/+-]*(?<![.:/+-])")
_POSITION = re.compile(
    r"(?:position|line|offset|character|column|byte|argument|pos)\s*$", re.IGNORECASE
)
_FOREIGN_WORD = re.compile(r"[^\x00-\x7f\s]+")
# Engines that echo a value without quotes after a fixed marker: DuckDB's JSON errors
# (`Input: name`), RE2's pattern errors (`missing ): (name`), and the like.
_UNQUOTED_TAIL = re.compile(
    r"(?P<marker>\b(?:Input|input|missing [)\]]|unexpected \)|trailing \\|"
    r"invalid escape sequence|invalid character class(?: range)?|bad repetition operator|"
    r"invalid repetition size|invalid perl operator|invalid named capture group|"
    r"no argument for repetition operator|invalid UTF-8)\s*:\s*)(?P<tail>.+)$",
    re.MULTILINE,
)
# Quoted texts that are the server's own words, not the statement's (MySQL's `in 'where
# clause'`, its GROUP BY temporary key).
_SERVER_WORDS = frozenset(
    {
        "field list",
        "where clause",
        "on clause",
        "order clause",
        "group statement",
        "having clause",
        "group_key",
        "<group_key>",
    }
)
_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'|\$(?P<tag>\w*)\$.*?\$(?P=tag)\$", re.DOTALL)
_WORD = re.compile(r"\w+")


def redact_error(message: str, statement: str | None = None) -> str:
    """Return `message` with every value it may quote replaced by `…` (see the module)."""
    words = _statement_words(statement or "")
    text = _UNQUOTED_TAIL.sub(lambda m: m["marker"] + _HIDDEN, message)
    text = _QUOTED.sub(lambda m: _quoted(m, words), text)
    text = _STRAY_QUOTE.sub(_HIDDEN, text)  # an unbalanced quote: its whole tail
    text = _NUMBER.sub(lambda m: _number(m, text), text)
    text = _FOREIGN_WORD.sub(lambda m: m[0] if m[0].lower() in words else _HIDDEN, text)
    return text.replace(_HIDDEN, REDACTED).translate(_QUOTES_BACK)


def _statement_words(statement: str) -> frozenset[str]:
    """Return the statement's words (lower case) outside its string literals."""
    return frozenset(w.lower() for w in _WORD.findall(_STRING_LITERAL.sub(" ", statement)))


def _quoted(match: re.Match[str], words: frozenset[str]) -> str:
    """Keep a quoted text made only of the statement's (or server's) words; else redact it."""
    if match["curly"] is not None:
        return f"“{_HIDDEN}”"
    text, quote = match["text"], match["q"].translate(_SETTLED_QUOTES)
    found = _WORD.findall(text)
    is_own = text.lower() in _SERVER_WORDS or (
        any(not w.isdigit() for w in found) and all(w.lower() in words for w in found)
    )
    return match[0].translate(_SETTLED_QUOTES) if is_own else f"{quote}{_HIDDEN}{quote}"


def _number(match: re.Match[str], text: str) -> str:
    """Keep a number that says where (`position 5`, `LINE 1`); redact any other."""
    return match[0] if _POSITION.search(text[: match.start()]) else _HIDDEN

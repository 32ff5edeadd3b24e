"""The rules of user ids and thread ids every route keeps, and pydantic errors as one line."""

from __future__ import annotations

import unicodedata

from pydantic import ValidationError

from react_agent.errors import ServiceError, bad_request

MAX_USER_ID_CHARS = 50
MAX_THREAD_ID_CHARS = 128
GUEST_USER_ID = "guest"
USER_ID_PATTERN = r"^[^:\s\x00-\x1f\x7f]*$"
THREAD_ID_PATTERN = r"^[^:\s\x00-\x1f\x7f]{1,50}:[^\s\x00-\x1f\x7f]+$"
_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs"})
"""Unicode categories refused in ids: control, format (e.g. bidi overrides) and surrogates."""


def describe_validation_error(error: Exception) -> str:
    """Return a pydantic ValidationError as `field: problem` items joined by `; `."""
    if not isinstance(error, ValidationError):
        return str(error)
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or 'request'}: {item['msg']}"
        for item in error.errors()
    )


def check_user_id(user_id: str) -> str:
    """Return `user_id` if it keeps the API's rules, else raise its 400."""
    fault = user_id_fault(user_id)
    if fault is not None:
        raise fault
    return user_id


def user_id_fault(user_id: str) -> ServiceError | None:
    """Return the 400 a user id earns: over 50 characters, or ':', whitespace or control."""
    if len(user_id) > MAX_USER_ID_CHARS:
        return bad_request(
            "USER_ID_TOO_LONG",
            f"user_id has {len(user_id)} characters; the limit is {MAX_USER_ID_CHARS}",
            limit=MAX_USER_ID_CHARS,
        )
    if ":" in user_id or has_unprintable(user_id):
        return bad_request(
            "USER_ID_INVALID", "user_id must not contain ':', whitespace or control characters"
        )
    return None


def check_thread_id_format(thread_id: str) -> str:
    """Return the owner part of a `user_id:…` thread id, or raise 400.

    The one check of a thread id's text, for every route that takes one: `user_id:…`, at
    most 128 characters, and no whitespace or control characters (a newline in an id would
    let a caller forge log lines).
    """
    fault = thread_id_fault(thread_id)
    if fault is not None:
        raise fault
    return thread_id.partition(":")[0]


def thread_id_fault(thread_id: str) -> ServiceError | None:
    """Return the 400 a thread id's text earns (see check_thread_id_format), or None."""
    owner, sep, rest = thread_id.partition(":")
    if (
        not sep
        or not owner
        or not rest
        or len(thread_id) > MAX_THREAD_ID_CHARS
        or has_unprintable(thread_id)
    ):
        return bad_request(
            "THREAD_ID_INVALID",
            f"thread_id {thread_id[:MAX_THREAD_ID_CHARS]!r} must look like user_id:identifier "
            f"(at most {MAX_THREAD_ID_CHARS} characters, no whitespace or control characters)",
        )
    if len(owner) > MAX_USER_ID_CHARS:
        return bad_request(
            "USER_ID_TOO_LONG",
            f"the user part of thread_id is longer than {MAX_USER_ID_CHARS} characters",
            limit=MAX_USER_ID_CHARS,
        )
    return None


def has_unprintable(text: str) -> bool:
    """Return whether `text` holds whitespace or control, format or surrogate characters."""
    return any(ch.isspace() or unicodedata.category(ch) in _UNPRINTABLE for ch in text)


def check_thread_owner(thread_id: str, user_id: str) -> None:
    """Raise 400 naming both ids when `thread_id` does not belong to `user_id`."""
    if thread_id.partition(":")[0] != user_id:
        raise bad_request(
            "THREAD_OWNERSHIP_MISMATCH",
            f"thread_id {thread_id} does not belong to user_id {user_id}",
            thread_id=thread_id,
            user_id=user_id,
        )


def choose_thread_id(thread_id: str | None, conversation_id: str | None) -> tuple[str | None, bool]:
    """Return the thread the request names (thread_id wins) and whether conversation_id lost."""
    # Blank means absent; anything else is checked as sent (whitespace in it is refused).
    thread_id = thread_id if thread_id and thread_id.strip() else None
    conversation_id = conversation_id if conversation_id and conversation_id.strip() else None
    if thread_id is not None:
        return thread_id, conversation_id is not None and conversation_id != thread_id
    return conversation_id, False

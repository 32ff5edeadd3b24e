"""Access to a named thread on the read endpoints: its query and the ownership check."""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import g

from app.http.auth import authorize_user
from app.http.ids import (
    MAX_USER_ID_CHARS,
    check_thread_id_format,
    check_thread_owner,
    check_user_id,
)


class ThreadQuery(BaseModel):
    """Query of the endpoints that name a thread: whose it is."""

    # Its length is checked by check_user_id, with the ask endpoints' own error code.
    user_id: str | None = Field(
        default=None,
        description="The thread's owner (at most 50 characters); when absent, the part of "
        "the thread id before ':'.",
        json_schema_extra={"maxLength": MAX_USER_ID_CHARS},
    )
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")


def owned_thread(thread_id: str, user_id: str | None) -> str:
    """Return the owner of `thread_id`, checked against `user_id` when one is given.

    As on the ask endpoints, an absent user is the part of the thread id before ':'. The
    thread is recorded on `g` so that error envelopes name it.
    """
    g.conversation_id = thread_id
    given = (user_id or "").strip() or None
    if given is not None:
        check_user_id(given)
    owner = check_thread_id_format(thread_id)
    user_id = given or owner
    check_thread_owner(thread_id, user_id)
    authorize_user(user_id)  # the key check saw the path too; the route checks what it uses
    return user_id

"""The ask routes' side of accepting: the Quart request made a `Caller`, errors' language.

`accept_request` records two things on `quart.g`, read by `app.http.errors` when it turns
a ServiceError into the envelope:

- `g.lang`: the request's language, set before validation so that even a rejected request
  is answered in the language it asked for;
- `g.conversation_id`: the thread an existing conversation names, so errors say which
  conversation they are about. A newly made thread id is not recorded here: it only becomes
  real once its run starts (the route records it then).
"""

from __future__ import annotations

from typing import Any

from quart import g, request

from app.asking.accept import Caller, ThreadFinder, accept_question
from app.asking.validation import AskRequest
from app.http.app_state import agent_service, thread_id_clock
from config import resolve_lang


def request_caller(payload: dict[str, Any], surface: str = "ask") -> Caller:
    """Return what this Quart request brought: `payload`, its key and Accept-Language."""
    return Caller(
        payload,
        key=getattr(g, "api_key", None),
        accept_language=request.headers.get("Accept-Language"),
        surface=surface,
    )


async def accept_request(
    payload: dict[str, Any], surface: str = "ask", *, continued: ThreadFinder | None = None
) -> AskRequest:
    """Accept this request's question (`accept_question`), keeping its language for errors."""
    caller = request_caller(payload, surface)
    requested_lang = payload.get("lang")
    g.lang = resolve_lang(
        requested_lang if isinstance(requested_lang, str) else None, caller.accept_language
    )
    return await accept_question(
        agent_service(), thread_id_clock(), caller, noticed=_noticed, continued=continued
    )


def _noticed(ask: AskRequest) -> None:
    g.lang = ask.lang
    if not ask.is_new_thread:
        g.conversation_id = ask.thread_id

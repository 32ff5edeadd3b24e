"""Who is asking and what they may see, resolved once per request for every surface."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quart import g

from app.http.auth import ApiKey, authorize_user
from app.http.ids import GUEST_USER_ID
from react_agent.access.actor import Actor
from react_agent.access.scope import Scope
from react_agent.service import AgentService

USER_FIELDS = ("user_id", "user")
THREAD_FIELDS = ("thread_id", "conversation_id")


def actor_and_scope(
    service: AgentService | None, user_id: str, key: ApiKey | None
) -> tuple[Actor, Scope | None]:
    """Return the actor of `user_id` (asking with `key`) and its scope (None: no policy)."""
    key_id = key.key_id if key is not None else None
    policy = service.policy if service is not None else None
    if policy is None:
        return Actor(user_id, key_id), None
    actor = policy.actor_for(user_id, key_id)
    return actor, policy.scope_for(actor)


def request_actor(service: AgentService | None, user_id: str) -> tuple[Actor, Scope | None]:
    """Resolve the request's actor and scope, and keep them on `g` for later steps."""
    actor, scope = actor_and_scope(service, user_id, getattr(g, "api_key", None))
    g.actor, g.scope = actor, scope
    return actor, scope


def caller_user_id(named: str | None = None) -> str:
    """Return who a request that may name no user asks as: `named`, the key's user, guest.

    Raises:
        ServiceError: 403 FORBIDDEN when the key may not act for `named`.

    """
    key: ApiKey | None = getattr(g, "api_key", None)
    user_id = named or (key.sole_user if key is not None else None) or GUEST_USER_ID
    authorize_user(user_id)
    return user_id


def with_key_user(
    payload: Mapping[str, Any], key: ApiKey | None, user_field: str = "user_id"
) -> dict[str, Any]:
    """Return `payload` naming the key's one user when it names no user and no thread.

    The one default-user rule of every surface (the ask routes, OpenAI, MCP): a key bound
    to one user asks as that user; otherwise a request that names nobody asks as guest.
    """
    named = any(payload.get(field) for field in (*USER_FIELDS, *THREAD_FIELDS))
    if key is None or key.sole_user is None or named:
        return dict(payload)
    return {**payload, user_field: key.sole_user}


HIDDEN_WITHOUT_SHOW_SQL = frozenset({"sql", "sqls", "args"})
"""Keys of SQL and tool arguments, dropped from what a role without show_sql reads."""


def without_sql(data: Any) -> Any:
    """Return `data` without SQL or tool arguments at any depth (for show_sql: false)."""
    if isinstance(data, Mapping):
        return {k: without_sql(v) for k, v in data.items() if k not in HIDDEN_WITHOUT_SHOW_SQL}
    if isinstance(data, list):
        return [without_sql(item) for item in data]
    return data

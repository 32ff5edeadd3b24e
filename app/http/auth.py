"""API keys: who may call the service at all, and whose conversations each key may touch."""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl

from quart import Quart, Request, current_app, g, request

from app.http.bodies import optional_json_object
from config import Settings
from react_agent.errors import ConfigurationError, ServiceError

OPEN_PATHS = frozenset({"/", "/health", "/ready", "/api/v0/ready"})
"""Paths anyone may fetch: the page itself, the health check and readiness (for probes)."""
OPEN_PREFIXES = ("/static/", "/embed/")
"""The page's own files, and the chat component's script (app/routes/web/embed.py)."""
API_KEY_QUERY_PARAMETER = "api_key"
"""Where a browser's EventSource, which cannot send headers, puts the key."""
USER_FIELDS = ("user_id", "user")
THREAD_FIELDS = ("thread_id", "conversation_id")
FILTER_PATHS = frozenset({"/api/v0/audit"})
"""Paths whose query `user` is a filter, not the caller: whoever may read the audit may
filter it by anyone (the route checks that the caller may read it)."""
_QUERY_KEY = re.compile(rf"({API_KEY_QUERY_PARAMETER}=)[^&\s\"]*")
_QUERY_KEY_MARK = f"{API_KEY_QUERY_PARAMETER}="
"""What every match of `_QUERY_KEY` contains."""


@dataclass(frozen=True)
class ApiKey:
    """One key; `users` are the user ids it may act for, or None for any user."""

    secret: bytes
    users: frozenset[str] | None

    def allows(self, user_id: str) -> bool:
        """Whether this key may read and write `user_id`'s conversations."""
        return self.users is None or user_id in self.users

    @property
    def key_id(self) -> str:
        """A stable short id of the key (a hash, never the secret), for the audit and logs."""
        return "key-" + hashlib.sha256(self.secret).hexdigest()[:12]

    @property
    def sole_user(self) -> str | None:
        """The one user this key is bound to, who it acts as when a request names none."""
        if self.users is not None and len(self.users) == 1:
            return next(iter(self.users))
        return None


def parse_api_keys(text: str) -> list[ApiKey]:
    """Parse `key` and `key=alice,bob` entries separated by `;` or new lines (`#` comments).

    `key=` with no user is a key for no user's data (routes that name no user).

    Raises:
        ValueError: An entry would make an empty or odd key (no key before `=`, a comma
            or a space inside a key, an empty user name); the message says which entry (by
            line, and by place on the line) and never shows the key.

    """
    keys = []
    for line_number, line in enumerate(text.splitlines() or [""], start=1):
        if line.strip().startswith("#"):
            continue
        for place, raw in enumerate(line.split(";"), start=1):
            entry = raw.strip()
            if not entry or entry.startswith("#"):
                continue
            problem = _entry_problem(entry)
            if problem is not None:
                raise ValueError(f"line {line_number}, entry {place}: {problem}")
            secret, bound, users = entry.partition("=")
            names = frozenset(name.strip() for name in users.split(",") if name.strip())
            keys.append(ApiKey(secret.strip().encode(), names if bound else None))
    return keys


def _entry_problem(entry: str) -> str | None:
    """Return what is wrong with one `key[=users]` entry, or None (never the key itself)."""
    secret, bound, users = entry.partition("=")
    secret = secret.strip()
    if not secret:
        return "no key before '=' (write key=alice,bob)"
    if "," in secret:
        return "a key holds a comma; separate keys with ';' or new lines (k1; k2)"
    if any(char.isspace() for char in secret):
        return "a key holds a space; separate keys with ';' or new lines"
    names = [name.strip() for name in users.split(",")]
    if bound and any(names) and (not all(names) or any(" " in name for name in names)):
        return "an empty or spaced user name after '=' (write key=alice,bob)"
    return None


def load_api_keys(settings: Settings) -> ApiKeys:
    """Return the keys of API_KEYS and API_KEYS_FILE (none: the service stays open).

    Raises:
        ConfigurationError: The file cannot be read, or an entry is not a proper key.

    """
    try:
        keys = parse_api_keys(settings.api_keys.get_secret_value() if settings.api_keys else "")
    except ValueError as exc:
        raise ConfigurationError("API_KEYS", f"API_KEYS {exc} (docs/api-keys.md)") from exc
    if settings.api_keys_file is None:
        return ApiKeys(keys)
    path = Path(settings.api_keys_file)
    try:
        keys += parse_api_keys(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigurationError(
            "API_KEYS_FILE",
            f"API_KEYS_FILE {path}: {exc.strerror or exc}; set it to a readable file of keys "
            "(docs/api-keys.md), or unset it",
        ) from exc
    except ValueError as exc:
        raise ConfigurationError(
            "API_KEYS_FILE", f"API_KEYS_FILE {path}: {exc} (docs/api-keys.md)"
        ) from exc
    return ApiKeys(keys)


class ApiKeys:
    """The configured keys, checked in constant time."""

    def __init__(self, keys: Iterable[ApiKey]) -> None:
        self.keys = [key for key in keys if key.secret]

    @property
    def enabled(self) -> bool:
        """Whether any key is configured (else every request is let in)."""
        return bool(self.keys)

    def match(self, token: str | None) -> ApiKey | None:
        """Return the key equal to `token`; every key is compared, so timing tells nothing."""
        if not token:
            return None
        candidate = token.encode()
        found = None
        for key in self.keys:
            if hmac.compare_digest(key.secret, candidate):
                found = key
        return found

    def authenticate(self, headers: Mapping[str, str], query_key: str | None) -> ApiKey | None:
        """Return the key a request carries, or raise 401 UNAUTHORIZED (None when open)."""
        if not self.enabled:
            return None
        key = self.match(bearer_token(headers.get("authorization")) or query_key)
        if key is None:
            raise ServiceError(401, "UNAUTHORIZED", "missing or invalid API key")
        return key


def bearer_token(authorization: str | None) -> str | None:
    """Return the token of an `Authorization: Bearer <token>` header."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def is_open_path(path: str) -> bool:
    """Whether a path is served without a key."""
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


def may_act_for(user_id: str) -> bool:
    """Whether the request's key may act for `user_id` (always, without keys or unbound)."""
    key: ApiKey | None = getattr(g, "api_key", None)
    return key is None or key.allows(user_id)


def check_key_allows(key: ApiKey | None, user_id: str) -> None:
    """Raise 403 FORBIDDEN when `key` is bound to other users than `user_id` (no request read)."""
    if key is not None and not key.allows(user_id):
        raise ServiceError(
            403, "FORBIDDEN", f"this API key may not access user {user_id}", user_id=user_id
        )


def authorize_user(user_id: str) -> None:
    """Raise 403 FORBIDDEN when the request's key is bound to other users than `user_id`.

    The one owner check of a user the request names: the before_request hook calls it with
    every user id the request carries (path, query, body whatever its content type), and
    routes with the user id they resolved.
    """
    check_key_allows(getattr(g, "api_key", None), user_id)


def owns(owner: str, claimed: str | None = None) -> bool:
    """Whether the caller may read a record of `owner` (a run, a rating) found by its id.

    The one owner check of a record: the key may act for its owner, and a user the request
    names (`claimed`) is its owner. A record that fails it is answered as a missing one
    (404, or 204 on a stream's resume), so an id never tells whose it is.
    """
    return may_act_for(owner) and (claimed is None or claimed == owner)


def require_admin() -> None:
    """Raise 403 FORBIDDEN when the request's key is bound to users (admin routes need a free key).

    The training data and the move of ratings into it shape every user's answers, so only
    a key that may act for anyone (or no key, when keys are off) may change them.
    """
    key: ApiKey | None = getattr(g, "api_key", None)
    if key is not None and key.users is not None:
        raise ServiceError(
            403,
            "FORBIDDEN",
            "this API key is bound to users; admin keys only",
            message_key="FORBIDDEN_ADMIN_ONLY",
        )


def users_named(values: Iterable[tuple[str, object]]) -> list[str]:
    """Return the user ids named by request values: `user_id`, and owners of thread ids."""
    users = []
    for field, value in values:
        if not isinstance(value, str) or not value:
            continue
        if field in USER_FIELDS:
            users.append(value)
        elif field in THREAD_FIELDS:
            owner, sep, _ = value.partition(":")
            if sep and owner:
                users.append(owner)
    return users


async def request_values(request: Request, *, query: bool = True) -> list[tuple[str, object]]:
    """Return every (field, value) a route may read a user from, whatever the content type.

    The query string (every value of a repeated field), the path, and the body: read as
    JSON whatever its Content-Type says (a route that reads a body without the header
    must not see more than this check did), and as a form when it is form-encoded. A
    multipart body (the dataset upload) is left to its route, which checks its form's user.
    Without `query`, the query string is a route's filter (FILTER_PATHS), not the caller.
    """
    values: list[tuple[str, object]] = list(request.args.items(multi=True)) if query else []
    values += list((request.view_args or {}).items())
    if request.mimetype.startswith("multipart/"):
        return values
    body = await optional_json_object(request)
    if body is not None:
        values += list(body.items())
    if request.mimetype == "application/x-www-form-urlencoded":
        raw = await request.get_data(as_text=False)
        values += parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=False)
    return values


class QueryKeyRedaction(logging.Filter):
    """Masks `api_key=` query values in log records (the access log prints request lines)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message and arguments; never drop the record."""
        if isinstance(record.msg, str):
            record.msg = redact_query_key(record.msg)
        if isinstance(record.args, dict):
            # Hypercorn's access log atoms: a dict subclass, so it is changed in place.
            for name, value in list(record.args.items()):
                if isinstance(value, str):
                    record.args[name] = redact_query_key(value)
        elif isinstance(record.args, tuple):
            record.args = tuple(
                redact_query_key(value) if isinstance(value, str) else value
                for value in record.args
            )
        return True


_API_KEYS = "api_keys"


def redact_query_key(text: str) -> str:
    """Return `text` with the value of every `api_key=` query parameter masked."""
    if _QUERY_KEY_MARK not in text:
        # Most values have none: the test is ~20 times cheaper than the substitution, and
        # the access log passes every header of every request through here.
        return text
    return _QUERY_KEY.sub(r"\1***", text)


ACCESS_LOG_REDACTION = QueryKeyRedaction()


def api_keys_of(app: Quart) -> ApiKeys:
    """Return the keys `install_api_keys` gave `app`."""
    return app.extensions[_API_KEYS]


def install_api_keys(app: Quart, keys: ApiKeys) -> None:
    """Check the key of every request but the open ones, and the users its path names."""
    app.extensions[_API_KEYS] = keys
    logging.getLogger("hypercorn.access").addFilter(ACCESS_LOG_REDACTION)

    @app.before_request
    async def require_api_key() -> None:
        keys = api_keys_of(current_app)
        if not keys.enabled or is_open_path(request.path):
            return
        g.api_key = key = keys.authenticate(
            request.headers, request.args.get(API_KEY_QUERY_PARAMETER)
        )
        if key is None or key.users is None:
            return
        values = await request_values(request, query=request.path not in FILTER_PATHS)
        for user_id in users_named(values):
            authorize_user(user_id)

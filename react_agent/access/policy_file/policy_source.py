"""The policy in force: read at start-up, read again on change, loosened only when complete."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from react_agent.access.actor import Actor
from react_agent.access.policy_file.policy import Policy, parse_policy
from react_agent.access.policy_file.policy_checks import PolicyError
from react_agent.access.policy_file.policy_diff import loosenings
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.log_reminders import TroubleLog

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PolicyStatus:
    """What /health says of the policy: `current`, or `stale` with the reason."""

    status: str = "current"
    reason: str | None = None
    loaded_at: str | None = None


class PolicySource:
    """The policy file and the policy last read from it.

    A change of the file's modification time (or size) reads it again. What is read is
    applied at once when it is safe whether complete or not: it checks out and lets no one
    see or do more than the policy in force (policy_diff.loosenings). A change that loosens
    anything — a user removed, a table, a filter or a column rule given away, a flag or
    quota raised — is taken only once two reads at least `settle_seconds` apart found the
    same bytes: a file read while it is being written (cut after `default_role:`, say, so
    that users fall to the default role) is never applied. Meanwhile, and for a file that
    does not check out, the last good policy stays and `status` says why. A run keeps the
    Scope it started with, so a reload never changes a question already running.

    Args:
        path: The POLICY_FILE.
        catalog: Table → columns of the data database, to check names against (None:
            names are not checked, e.g. while the database is unreachable).
        settle_seconds: How long a loosening change must stay unchanged (0: at once).
        clock: Monotonic seconds (tests move it).

    """

    def __init__(
        self,
        path: Path,
        catalog: Mapping[str, list[str]] | None = None,
        *,
        settle_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.catalog = catalog
        self.settle_seconds = settle_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._troubles = TroubleLog(logger)
        self._stamp = self._file_stamp()
        text = path.read_text(encoding="utf-8")
        self.policy: Policy = parse_policy(text, path, catalog)
        self._digest = _digest(text)
        self._pending: tuple[str, float] | None = None
        """The digest of a loosening change seen, and when it was first seen."""
        self.status = PolicyStatus(loaded_at=_now())

    def _file_stamp(self) -> tuple[int, int]:
        stat = os.stat(self.path)
        return stat.st_mtime_ns, stat.st_size

    def current(self) -> Policy:
        """Return the policy, reading the file again first if it changed (or settles)."""
        try:
            stamp = self._file_stamp()
        except OSError as exc:  # asked on every request: one line, then one a minute
            self._troubles.trouble(
                "unreadable", f"policy file {self.path} unreadable, keeping the last policy: {exc}"
            )
            reason = f"stale: last good policy kept; {self.path} unreadable: {exc}"
            self.status = replace(self.status, status="stale", reason=reason)
            return self.policy
        self._troubles.over("unreadable", f"policy file {self.path} readable again")
        pending = self._pending
        settled = pending is not None and self.clock() - pending[1] >= self.settle_seconds
        if stamp != self._stamp or settled:
            with self._lock:
                if stamp != self._stamp or settled:
                    self._stamp = stamp
                    self._reload()
        return self.policy

    def _reload(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError as exc:
            self._keep(f"{self.path} unreadable: {exc}")
            return
        digest = _digest(text)
        if digest == self._digest:
            self._pending = None
            self.status = replace(self.status, status="current", reason=None)
            return
        try:
            policy = parse_policy(text, self.path, self.catalog)
        except Exception as exc:
            self._pending = None
            self._keep(f"{exc}")
            return
        loosened = loosenings(self.policy, policy)
        if loosened and self.settle_seconds > 0:
            now = self.clock()
            if self._pending is None or self._pending[0] != digest:
                self._pending = (digest, now)
            if now - self._pending[1] < self.settle_seconds:
                self._keep(
                    f"{self.path} loosens the policy ({'; '.join(loosened[:3])}): applied once "
                    f"unchanged for {self.settle_seconds:g} s (POLICY_RELOAD_SETTLE_SECONDS)"
                )
                return
        self.policy, self._digest, self._pending = policy, digest, None
        self.status = PolicyStatus(loaded_at=_now())
        logger.info("policy file %s read again", self.path)

    def _keep(self, why: str) -> None:
        reason = f"stale: last good policy kept; {why}"
        if reason != self.status.reason:
            logger.error("policy file %s not applied: %s", self.path, reason)
        self.status = replace(self.status, status="stale", reason=reason)

    def describe(self) -> dict[str, Any]:
        """Return what /health says of the policy (after reading the file again if it changed)."""
        self.current()
        return {
            "enabled": True,
            "status": self.status.status,
            "reason": self.status.reason,
            "loaded_at": self.status.loaded_at,
        }

    def actor_for(self, user_id: str, key_id: str | None = None) -> Actor:
        """Return the actor of `user_id` under the current policy."""
        return self.current().actor_for(user_id, key_id)

    def scope_for(self, actor: Actor) -> Scope:
        """Return the scope of `actor` under the current policy."""
        return self.current().scope_for(actor)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def require_known_users(path: Path, *, keys_set: bool, trusted_gateway: bool) -> None:
    """Refuse a policy whose user ids anyone could claim: no API keys, no trusted gateway.

    Without API_KEYS a request names its user itself (`user_id`, OpenAI's `user`), so a
    policy would only hold against honest callers, unless a gateway in front of the
    service authenticates people and sets the user id (AUTH_TRUSTED_GATEWAY=true).

    Raises:
        PolicyError: The message names POLICY_FILE, API_KEYS and AUTH_TRUSTED_GATEWAY.

    """
    if not keys_set and not trusted_gateway:
        raise PolicyError(
            f"POLICY_FILE={path} is set but API_KEYS (or API_KEYS_FILE) is not: anyone could "
            "claim any user id; set API_KEYS bound to users, or AUTH_TRUSTED_GATEWAY=true "
            "if a gateway in front of the service authenticates people and sets the user id"
        )


async def open_policy_source(
    path: Path, columns: TableColumns | None, *, settle_seconds: float = 5.0
) -> PolicySource:
    """Read and check POLICY_FILE against the data database's tables and columns.

    With the database unreachable at start-up, names are not checked (the rewrite still
    refuses what the scope does not allow); a wrong file raises PolicyError either way.
    """
    catalog = None
    if columns is not None:
        try:
            catalog = await columns.get()
        except Exception as exc:
            logger.warning("policy file %s: names not checked, database unavailable: %s", path, exc)
    return PolicySource(path, catalog, settle_seconds=settle_seconds)

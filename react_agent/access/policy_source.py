"""The policy in force: read at start-up, read again when the file changes (mtime)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from react_agent.access.actor import Actor
from react_agent.access.catalog import TableColumns
from react_agent.access.policy import Policy, load_policy
from react_agent.access.scope import Scope
from react_agent.log_reminders import TroubleLog

logger = logging.getLogger(__name__)


class PolicySource:
    """The policy file and the policy last read from it.

    A change of the file's modification time (or size) reads it again; a file that no
    longer checks out keeps the last good policy and logs why. A run keeps the Scope it
    started with, so a reload never changes a question already running.

    Args:
        path: The POLICY_FILE.
        catalog: Table → columns of the data database, to check names against (None:
            names are not checked, e.g. while the database is unreachable).

    """

    def __init__(self, path: Path, catalog: Mapping[str, list[str]] | None = None) -> None:
        self.path = path
        self.catalog = catalog
        self._lock = threading.Lock()
        self._troubles = TroubleLog(logger)
        self._stamp = self._file_stamp()
        self.policy: Policy = load_policy(path, catalog)

    def _file_stamp(self) -> tuple[int, int]:
        stat = os.stat(self.path)
        return stat.st_mtime_ns, stat.st_size

    def current(self) -> Policy:
        """Return the policy, reading the file again first if it changed."""
        try:
            stamp = self._file_stamp()
        except OSError as exc:  # asked on every request: one line, then one a minute
            self._troubles.trouble(
                "unreadable", f"policy file {self.path} unreadable, keeping the last policy: {exc}"
            )
            return self.policy
        self._troubles.over("unreadable", f"policy file {self.path} readable again")
        if stamp != self._stamp:
            with self._lock:
                if stamp != self._stamp:
                    self._stamp = stamp
                    try:
                        self.policy = load_policy(self.path, self.catalog)
                        logger.info("policy file %s read again", self.path)
                    except Exception as exc:
                        logger.error(
                            "policy file %s not applied, keeping the last: %s", self.path, exc
                        )
        return self.policy

    def actor_for(self, user_id: str, key_id: str | None = None) -> Actor:
        """Return the actor of `user_id` under the current policy."""
        return self.current().actor_for(user_id, key_id)

    def scope_for(self, actor: Actor) -> Scope:
        """Return the scope of `actor` under the current policy."""
        return self.current().scope_for(actor)


async def open_policy_source(path: Path, columns: TableColumns | None) -> PolicySource:
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
    return PolicySource(path, catalog)

"""Each sub-question a delegate call hands out counts as one question of the asker's quota."""

from __future__ import annotations

import logging

from react_agent.access.current import CURRENT_ACTOR, CURRENT_SCOPE
from react_agent.errors import ServiceError
from react_agent.quotas.gate import Quotas

logger = logging.getLogger(__name__)


class SubquestionQuota:
    """The delegate tool's quota (react_agent/subagents/bounds.SubquestionQuota) over Quotas.

    Read in the run's task, where the runner set the asker and their scope.
    """

    def __init__(self, quotas: Quotas) -> None:
        self.quotas = quotas

    async def take(self) -> str | None:
        """Count one sub-question; return the quota's refusal (None when it may run)."""
        actor = CURRENT_ACTOR.get()
        if actor is None:
            return None
        try:
            await self.quotas.admit(actor.user_id, CURRENT_SCOPE.get(), question=True)
        except ServiceError as refusal:
            return refusal.detail
        except Exception as exc:  # the counters' database away: not asked, the run goes on
            logger.warning("quotas: sub-question of %s not counted: %s", actor.user_id, exc)
            return "the quota counters cannot be reached"
        return None

"""Admitting a question on every surface: who asks it (the actor), and their quotas.

Every surface calls `admit_question` (through `app.asking.accept.admit`) after validation
and before the run starts. It makes the actor the current one (the run's listeners read it
when the run is accepted: the audit records the asker) and takes one question from the
asker's quota, or raises 429 QUOTA_EXCEEDED with `retry_after` (the Retry-After header,
`data.retry_after`).
"""

from __future__ import annotations

from react_agent.access.actor import Actor
from react_agent.access.current import CURRENT_ACTOR
from react_agent.access.scope import Scope
from react_agent.service import AgentService


async def admit_question(
    service: AgentService, actor: Actor, scope: Scope | None = None, *, resume: bool = False
) -> None:
    """Make `actor` the current actor and take a question from their quota.

    Args:
        service: The agent service (its ledger holds the quotas, when on).
        actor: Who asks (the accept path resolved them).
        scope: What they may do; its role quota wins over the QUOTA_* settings.
        resume: The request resumes a question already counted (an approval decision).

    Raises:
        ServiceError: 429 QUOTA_EXCEEDED with `retry_after` when the asker is over a quota.

    """
    CURRENT_ACTOR.set(actor)
    ledger = service.ledger
    if ledger is not None and ledger.quotas is not None:
        await ledger.quotas.admit(actor.user_id, scope, question=not resume)

"""Admitting a question on every surface: who asks it (the actor), and their quotas.

Every surface calls `admit_question` (through `app.asking.accept.admit`) after validation
and before the run starts. It takes one question from the asker's quota (the actor goes
to the run as an argument of `start.start_run`, where the audit reads it), or raises 429
QUOTA_EXCEEDED with `retry_after` (the Retry-After header, `data.retry_after`). Under a
token quota, `start.start_run` then holds the run's tokens (`run_tokens`,
react_agent/quotas/reservations.py) for as long as the run lasts.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from react_agent.access.actor import Actor
from react_agent.access.scope import Scope
from react_agent.quotas.gate import Quotas
from react_agent.quotas.reservations import TokenReservation, reserve_tokens
from react_agent.quotas.tally import TokenTally
from react_agent.service import AgentService


@dataclass(frozen=True)
class TokenBudget:
    """Whose tokens the runs this request starts hold, and where (set by admit_question)."""

    quotas: Quotas
    tally: TokenTally
    user_id: str
    scope: Scope | None


ADMITTED: ContextVar[TokenBudget | None] = ContextVar("admitted_budget", default=None)
"""The budget of the question this request admitted; None: no token quota to hold."""


async def admit_question(
    service: AgentService, actor: Actor, scope: Scope | None = None, *, resume: bool = False
) -> None:
    """Take a question from `actor`'s quota.

    Args:
        service: The agent service (its ledger holds the quotas, when on).
        actor: Who asks (the accept path resolved them).
        scope: What they may do; its role quota wins over the QUOTA_* settings.
        resume: The request resumes a question already counted (an approval decision).

    Raises:
        ServiceError: 429 QUOTA_EXCEEDED with `retry_after` when the asker is over a quota.

    """
    ADMITTED.set(None)  # never an earlier request's budget (MCP tool calls share a task)
    ledger = service.ledger
    if ledger is not None and ledger.quotas is not None:
        await ledger.quotas.admit(actor.user_id, scope, question=not resume)
        if ledger.tally is not None:
            ADMITTED.set(TokenBudget(ledger.quotas, ledger.tally, actor.user_id, scope))


async def run_tokens() -> TokenReservation | None:
    """Hold the tokens of a run of the question admitted in this request (None: no quota).

    Raises:
        ServiceError: 429 QUOTA_EXCEEDED with `retry_after` (reservations.reserve_tokens).

    """
    budget = ADMITTED.get()
    if budget is None:
        return None
    return await reserve_tokens(budget.quotas, budget.tally, budget.user_id, budget.scope)

"""Tokens held for a question while it runs: reserved as its run starts, given back at its end.

A daily token quota is checked before a question runs, but its tokens are counted only as
its model calls come back, so six questions sent at once all passed a check that the six
together overran. So each run of a user with a token quota first reserves
QUOTA_TOKENS_RESERVE tokens of the day in the shared counters, with one conditional upsert
that succeeds only while the tokens used plus those reserved are under the limit; its
model calls add their real tokens as before, and when the run ends the reservation is
given back (after its tokens were added). A question that uses more than its reservation
may still cross the limit, as a single question always could; the next one then waits for
the day. A process that dies keeps its reservations until the day ends (fails closed).
"""

from __future__ import annotations

from dataclasses import dataclass

from react_agent.access.scope import Scope
from react_agent.errors import ServiceError
from react_agent.quotas.counters import TOKENS
from react_agent.quotas.gate import Quotas, quota_exceeded
from react_agent.quotas.tally import TokenTally

HELD_RETRY_AFTER = 10
"""Retry-After (seconds) of a question refused while the user's other questions hold the room."""


@dataclass
class TokenReservation:
    """Tokens of one day held for one run; `release` gives them back (once)."""

    user_id: str
    day: str
    amount: int
    tally: TokenTally
    released: bool = False

    def release(self) -> None:
        """Give the tokens back, after the run's own tokens are counted (never blocks)."""
        if not self.released:
            self.released = True
            self.tally.release(self.user_id, self.day, self.amount)


def tokens_held(limit: int) -> ServiceError:
    """Return the 429 of a user whose running questions hold what is left of the day."""
    return ServiceError(
        429,
        "QUOTA_EXCEEDED",
        f"quota exceeded: {limit} model tokens per day, the rest held by your questions "
        f"still running; try again in {HELD_RETRY_AFTER} s",
        can_retry=True,
        retry_after=HELD_RETRY_AFTER,
        quota=TOKENS,
        limit=limit,
    )


async def reserve_tokens(
    quotas: Quotas, tally: TokenTally, user_id: str, scope: Scope | None
) -> TokenReservation | None:
    """Reserve a run's tokens of today, or raise 429 QUOTA_EXCEEDED (None: no token quota).

    Raises:
        ServiceError: 429 with Retry-After: the end of the day when the day's tokens are
            used up, HELD_RETRY_AFTER when the user's running questions hold the rest.

    """
    limit = quotas.defaults.for_scope(scope).tokens_per_day
    if not limit:
        return None
    await quotas.schema.ready()
    windows = quotas.counters.windows()
    counters = quotas.counters
    if not await counters.reserve_tokens(user_id, limit, quotas.token_reserve, windows.day):
        if not tally.owes(user_id):
            raise await _refusal(quotas, user_id, limit)
        await tally.flush()  # this process's ended questions give their room back first
        if not await counters.reserve_tokens(user_id, limit, quotas.token_reserve, windows.day):
            raise await _refusal(quotas, user_id, limit)
    return TokenReservation(user_id, windows.day, quotas.token_reserve, tally)


async def _refusal(quotas: Quotas, user_id: str, limit: int) -> ServiceError:
    windows = quotas.counters.windows()
    used = await quotas.counters.used(user_id, windows)
    if used[TOKENS] >= limit:
        return quota_exceeded(TOKENS, limit, windows.day_resets_in)
    return tokens_held(limit)

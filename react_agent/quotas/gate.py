"""The quota check at accept, the token tally after a run, and what a user has used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from react_agent.access.scope import Scope
from react_agent.audit.schema import SchemaOnce
from react_agent.errors import ServiceError
from react_agent.quotas.counters import QUESTIONS, TOKENS, QuotaCounters, Windows


@dataclass(frozen=True)
class QuotaLimits:
    """A user's limits; 0 is no limit."""

    questions_per_minute: int = 0
    tokens_per_day: int = 0

    def for_scope(self, scope: Scope | None) -> QuotaLimits:
        """Return the scope's role quota where it sets one, these limits elsewhere."""
        quota = scope.quota if scope is not None else None
        if quota is None:
            return self
        return QuotaLimits(
            self.questions_per_minute
            if quota.questions_per_minute is None
            else quota.questions_per_minute,
            self.tokens_per_day if quota.tokens_per_day is None else quota.tokens_per_day,
        )


def quota_exceeded(kind: str, limit: int, retry_after: int) -> ServiceError:
    """Return the 429 of a user over a quota (Retry-After: when the window ends)."""
    what = "questions per minute" if kind == QUESTIONS else "model tokens per day"
    return ServiceError(
        429,
        "QUOTA_EXCEEDED",
        f"quota exceeded: {limit} {what}; try again in {retry_after} s",
        can_retry=True,
        retry_after=retry_after,
        quota=kind,
        limit=limit,
    )


class Quotas:
    """Checks and counts each user's questions and tokens against their limits.

    Args:
        counters: The shared counters.
        defaults: The limits of users whose scope sets none (QUOTA_* settings).
        schema: Creates the counters' table on first use.
        token_reserve: The tokens a run of a user with a token quota holds while it runs.

    """

    def __init__(
        self,
        counters: QuotaCounters,
        defaults: QuotaLimits,
        schema: SchemaOnce,
        *,
        token_reserve: int = 8000,
    ):
        self.counters = counters
        self.defaults = defaults
        self.schema = schema
        self.token_reserve = token_reserve
        """Tokens each run holds while it runs, under a token quota (reservations.py)."""

    async def admit(self, user_id: str, scope: Scope | None = None, *, question: bool = True):
        """Count a new question, or raise 429 QUOTA_EXCEEDED with its Retry-After.

        Args:
            user_id: Whose question it is.
            scope: The asker's scope (its role's quota wins over the defaults).
            question: False for a resume: it goes on with a question already counted.

        """
        limits = self.defaults.for_scope(scope)
        await self.schema.ready()
        windows = self.counters.windows()
        if limits.tokens_per_day:
            used = await self.counters.used(user_id, windows)
            if used[TOKENS] >= limits.tokens_per_day:
                raise quota_exceeded(TOKENS, limits.tokens_per_day, windows.day_resets_in)
        if question and not await self.counters.take_question(
            user_id, limits.questions_per_minute, windows
        ):
            raise quota_exceeded(QUESTIONS, limits.questions_per_minute, windows.minute_resets_in)

    async def add_tokens(self, user_id: str, tokens: int) -> None:
        """Add a run's model tokens to the user's day (react_agent/quotas/tally.py)."""
        await self.schema.ready()
        await self.counters.add_tokens(user_id, tokens)

    async def usage(self, user_id: str, scope: Scope | None = None) -> dict[str, Any]:
        """Return the user's use this minute and today, their limits and when each resets."""
        await self.schema.ready()
        windows = self.counters.windows()
        used = await self.counters.used(user_id, windows)
        return usage_data(user_id, used, self.defaults.for_scope(scope), windows, counted=True)


def usage_data(
    user_id: str, used: dict[str, int], limits: QuotaLimits, windows: Windows, *, counted: bool
) -> dict[str, Any]:
    """Return what GET /api/v0/usage shows (limits None where there is none)."""
    return {
        "user_id": user_id,
        "quotas_enabled": counted,
        "questions_this_minute": used.get(QUESTIONS, 0),
        "tokens_today": used.get(TOKENS, 0),
        "limits": {
            QUESTIONS: limits.questions_per_minute or None,
            TOKENS: limits.tokens_per_day or None,
        },
        "resets": {QUESTIONS: windows.minute_resets_at, TOKENS: windows.day_resets_at},
    }

"""The quota counters: one row per user, kind and window, changed by atomic upserts.

Every worker counts in the same table of the conversation database (SQLite or
PostgreSQL), so a question taken by one worker counts against the limit another checks.
A question is taken with one conditional upsert: the count only goes up while it is under
the limit, so two workers cannot both take the last place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from react_agent.audit.database import LedgerDatabase

QUESTIONS = "questions_per_minute"
TOKENS = "tokens_per_day"
RESERVED = "tokens_reserved"
"""Tokens held for the questions still running today (react_agent/quotas/reservations.py)."""

_TAKE = (
    "INSERT INTO quota_counters (user_id, kind, window_start, amount) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (user_id, kind, window_start) DO UPDATE "
    "SET amount = quota_counters.amount + excluded.amount"
)


# Reserve only while the day's tokens used plus those already reserved are under the limit:
# one statement, so two workers cannot both take the last room (the insert path is taken
# while nothing is reserved yet, the update path under the row's lock).
_USED_TODAY = (
    "COALESCE((SELECT u.amount FROM quota_counters u "
    "WHERE u.user_id = ? AND u.kind = ? AND u.window_start = ?), 0)"
)
_RESERVE = (
    "INSERT INTO quota_counters (user_id, kind, window_start, amount) "
    f"SELECT ?, ?, ?, ? WHERE {_USED_TODAY} < ? "
    "ON CONFLICT (user_id, kind, window_start) DO UPDATE "
    "SET amount = quota_counters.amount + excluded.amount "
    f"WHERE quota_counters.amount + {_USED_TODAY} < ? RETURNING amount"
)
_RELEASE = (
    "UPDATE quota_counters SET amount = CASE WHEN amount > ? THEN amount - ? ELSE 0 END "
    "WHERE user_id = ? AND kind = ? AND window_start = ?"
)


@dataclass(frozen=True)
class Windows:
    """The current minute and UTC day, and the seconds until each ends."""

    minute: str
    day: str
    minute_resets_in: int
    day_resets_in: int
    minute_resets_at: str
    day_resets_at: str


def windows_at(now: datetime) -> Windows:
    """Return the windows `now` (aware, any zone) falls in."""
    now = now.astimezone(UTC)
    minute_start = now.replace(second=0, microsecond=0)
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    next_minute = minute_start + timedelta(minutes=1)
    next_day = day_start + timedelta(days=1)
    return Windows(
        minute=minute_start.strftime("%Y-%m-%dT%H:%M"),
        day=day_start.strftime("%Y-%m-%d"),
        # Rounded up: a client that waits Retry-After seconds finds the new window.
        minute_resets_in=max(1, _ceil_seconds(next_minute - now)),
        day_resets_in=max(1, _ceil_seconds(next_day - now)),
        minute_resets_at=next_minute.isoformat().replace("+00:00", "Z"),
        day_resets_at=next_day.isoformat().replace("+00:00", "Z"),
    )


def _ceil_seconds(delta: timedelta) -> int:
    return -int(-delta.total_seconds() // 1)


class QuotaCounters:
    """Questions and tokens per user, in the quota_counters table.

    Args:
        database: The conversation database's ledger tables.
        clock: Returns the current time (aware); tests move it.

    """

    def __init__(
        self,
        database: LedgerDatabase,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.database = database
        self.clock = clock

    def windows(self) -> Windows:
        """Return the current windows."""
        return windows_at(self.clock())

    async def take_question(self, user_id: str, limit: int, windows: Windows) -> bool:
        """Count one question this minute unless `limit` are counted; False when full.

        `limit` 0 counts without a limit.
        """
        sql = _TAKE + (" WHERE quota_counters.amount < ?" if limit else "") + " RETURNING amount"
        params: list[object] = [user_id, QUESTIONS, windows.minute, 1]
        rows = await self.database.fetch_all(sql, [*params, limit] if limit else params)
        return bool(rows)

    async def add_tokens(self, user_id: str, tokens: int) -> None:
        """Add `tokens` to the user's count of today (UTC)."""
        if tokens > 0:
            day = self.windows().day
            await self.database.execute(_TAKE, [user_id, TOKENS, day, tokens])

    async def reserve_tokens(self, user_id: str, limit: int, amount: int, day: str) -> bool:
        """Hold `amount` tokens of `day` while used + reserved < `limit`; False when full."""
        used = [user_id, TOKENS, day]
        params = [user_id, RESERVED, day, amount, *used, limit, *used, limit]
        return bool(await self.database.fetch_all(_RESERVE, params))

    async def release_tokens(self, user_id: str, amount: int, day: str) -> None:
        """Give back `amount` tokens held on `day` (the question ended)."""
        await self.database.execute(_RELEASE, [amount, amount, user_id, RESERVED, day])

    async def used(self, user_id: str, windows: Windows) -> dict[str, int]:
        """Return the user's questions this minute and tokens today."""
        rows = await self.database.fetch_all(
            "SELECT kind, amount FROM quota_counters WHERE user_id = ? AND "
            "((kind = ? AND window_start = ?) OR (kind = ? AND window_start = ?))",
            [user_id, QUESTIONS, windows.minute, TOKENS, windows.day],
        )
        found = {row["kind"]: int(row["amount"]) for row in rows}
        return {QUESTIONS: found.get(QUESTIONS, 0), TOKENS: found.get(TOKENS, 0)}

    async def prune(self) -> int:
        """Delete the windows before yesterday; return how many rows went."""
        cutoff = (self.clock().astimezone(UTC) - timedelta(days=1)).strftime("%Y-%m-%d")
        return await self.database.execute(
            "DELETE FROM quota_counters WHERE window_start < ?", [cutoff]
        )

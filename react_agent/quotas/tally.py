"""The token tally: model tokens per user, summed in memory and added to the day in batches.

Told of every model call (react_agent/audit/listener.py), it must not block the run, so it
only adds to a dict; one background task adds the sums to the shared counters every
`flush_seconds` (one upsert per user) and `aclose` adds what is left at shutdown. The
reservations of ended runs (reservations.py) are given back by the same task, at once and
always after the user's tokens are added, so the counters never show less than was used.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter

from react_agent.quotas.gate import Quotas

logger = logging.getLogger(__name__)

PRUNE_EVERY = 3600.0
"""Seconds between two deletions of the counters of past days."""


class TokenTally:
    """Sums model tokens per user and adds them to the quota counters in the background."""

    def __init__(self, quotas: Quotas, flush_seconds: float = 0.2) -> None:
        self.quotas = quotas
        self.flush_seconds = flush_seconds
        self.pending: Counter[str] = Counter()
        self.releases: Counter[tuple[str, str]] = Counter()
        """Reserved tokens to give back, by user and day (after the user's tokens)."""
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None

    def add(self, user_id: str, tokens: int) -> None:
        """Count `tokens` for `user_id` (never blocks)."""
        if tokens > 0:
            self.pending[user_id] += tokens

    def release(self, user_id: str, day: str, tokens: int) -> None:
        """Give back `tokens` reserved on `day` once the user's tokens are added (never blocks)."""
        self.releases[(user_id, day)] += tokens
        if self._wake is not None:
            self._wake.set()  # sooner than the next flush: the user may be waiting to ask

    def owes(self, user_id: str) -> bool:
        """Whether tokens or a reservation of the user wait to be written."""
        return user_id in self.pending or any(user == user_id for user, _ in self.releases)

    async def flush(self) -> None:
        """Add every pending sum, then give back the reservations (a failure stays pending)."""
        taken, self.pending = self.pending, Counter()
        for user_id, tokens in taken.items():
            try:
                await self.quotas.add_tokens(user_id, tokens)
            except Exception as exc:
                self.pending[user_id] += tokens
                logger.warning(
                    "quotas: %d tokens of %s wait to be counted: %s", tokens, user_id, exc
                )
        released, self.releases = self.releases, Counter()
        for (user_id, day), tokens in released.items():
            if user_id in self.pending:  # its tokens are not counted yet: keep holding
                self.releases[(user_id, day)] += tokens
                continue
            try:
                await self.quotas.counters.release_tokens(user_id, tokens, day)
            except Exception as exc:
                self.releases[(user_id, day)] += tokens
                logger.warning("quotas: %d reserved tokens of %s wait: %s", tokens, user_id, exc)

    def start(self) -> None:
        """Start the background task that adds the sums."""
        if self._task is None:
            self._wake = asyncio.Event()
            self._task = asyncio.create_task(self._flush_forever(), name="token-tally")

    async def _flush_forever(self) -> None:
        loop = asyncio.get_running_loop()
        pruned_at = loop.time()
        wake = self._wake
        assert wake is not None
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), self.flush_seconds)
            wake.clear()
            await self.flush()
            if loop.time() - pruned_at >= PRUNE_EVERY:  # windows before yesterday go
                pruned_at = loop.time()
                try:
                    await self.quotas.counters.prune()
                except Exception as exc:
                    logger.warning("quotas: old counters not pruned: %s", exc)

    async def aclose(self) -> None:
        """Stop the task and add what is still pending."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()

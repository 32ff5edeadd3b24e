"""The token tally: model tokens per user, summed in memory and added to the day in batches.

Told of every model call (react_agent/audit/listener.py), it must not block the run, so it
only adds to a dict; one background task adds the sums to the shared counters every
`flush_seconds` (one upsert per user) and `aclose` adds what is left at shutdown.
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
        self._task: asyncio.Task[None] | None = None

    def add(self, user_id: str, tokens: int) -> None:
        """Count `tokens` for `user_id` (never blocks)."""
        if tokens > 0:
            self.pending[user_id] += tokens

    async def flush(self) -> None:
        """Add every pending sum to the counters now (a failed user's sum stays pending)."""
        taken, self.pending = self.pending, Counter()
        for user_id, tokens in taken.items():
            try:
                await self.quotas.add_tokens(user_id, tokens)
            except Exception as exc:
                self.pending[user_id] += tokens
                logger.warning(
                    "quotas: %d tokens of %s wait to be counted: %s", tokens, user_id, exc
                )

    def start(self) -> None:
        """Start the background task that adds the sums."""
        if self._task is None:
            self._task = asyncio.create_task(self._flush_forever(), name="token-tally")

    async def _flush_forever(self) -> None:
        loop = asyncio.get_running_loop()
        pruned_at = loop.time()
        while True:
            await asyncio.sleep(self.flush_seconds)
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

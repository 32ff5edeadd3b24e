"""Writes stored together in one trip or statement: telling each caller how its write went."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable


def settle(waiting: Iterable[asyncio.Future[None]], error: Exception | None) -> None:
    """Resolve the futures of writes that went together: stored, or failed with `error`.

    A future already done is left as it is: its caller stopped waiting (cancelled), and
    its rows are stored anyway when the group was.
    """
    for done in waiting:
        if done.done():
            continue
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)

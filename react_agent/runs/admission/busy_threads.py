"""A question on a busy thread (LangGraph's multitask strategies): reject, wait or interrupt."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Literal

from react_agent.errors import ServiceError
from react_agent.runs.store.locks import Release, ThreadLocks

OnBusy = Literal["reject", "enqueue", "interrupt"]
"""reject: 409 THREAD_BUSY (the default); enqueue: run after the running question;
interrupt: cancel the running question, then run."""

ON_BUSY_VALUES: tuple[OnBusy, ...] = ("reject", "enqueue", "interrupt")

CLAIM_RETRY_INTERVAL = 0.1
"""Seconds between claims of a busy thread by a waiting question.

The running question may be in another process, which tells nobody when it frees the
thread, so the claim is simply tried again; each try is one cheap query.
"""


def interrupted_by_newer_question() -> ServiceError:
    """Return the error a question ends with when a newer one interrupted it."""
    return ServiceError(
        409,
        "RUN_INTERRUPTED",
        "a newer question on this thread interrupted this one (on_busy=interrupt)",
        can_retry=True,
    )


async def claim_when_free(
    locks: ThreadLocks,
    thread_id: str,
    on_busy: OnBusy,
    interrupt: Callable[[str], Awaitable[None]],
    run_id: str | None = None,
) -> Release:
    """Claim the thread as `on_busy` says; return the function that frees it.

    Args:
        locks: The thread claims.
        thread_id: The thread.
        on_busy: What to do while another question holds the thread.
        interrupt: Cancels the question running on a thread, in whichever process.
        run_id: The run that will hold the thread (its liveness claim comes along).

    Raises:
        ServiceError: 409 THREAD_BUSY with `reject`, or any error of the claim itself.

    """
    interrupted = False
    while True:
        try:
            return await locks.claim(thread_id, run_id=run_id)
        except ServiceError as error:
            if on_busy == "reject" or error.error_type != "THREAD_BUSY":
                raise
        if on_busy == "interrupt" and not interrupted:
            interrupted = True
            await interrupt(thread_id)
        await asyncio.sleep(CLAIM_RETRY_INTERVAL)

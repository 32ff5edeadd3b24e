"""Runs that stream clients follow, kept so a client that reconnects can resume."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from app.streaming.events import StreamContext
from react_agent.runs.run import Run

FINISHED_RUN_TTL = 120.0
"""Seconds a finished run stays resumable: a client that lost the last events gets them."""


@dataclass
class FollowedRun:
    """A run, who it streams for, and how many clients follow it now."""

    run: Run
    ctx: StreamContext
    followers: int = 0
    cancel_timer: asyncio.TimerHandle | None = field(default=None, repr=False)


class StreamRuns:
    """Streamed runs by run id; a run nobody follows for `resume_grace` seconds is cancelled.

    Args:
        resume_grace: Seconds to wait for a client that left to reconnect.

    """

    def __init__(self, resume_grace: float) -> None:
        self.resume_grace = resume_grace
        self._runs: dict[str, FollowedRun] = {}

    def add(self, run: Run, ctx: StreamContext) -> FollowedRun:
        """Track a run until a while after it ends."""
        followed = self._runs[run.run_id] = FollowedRun(run, ctx)
        if run.task is not None:
            loop = asyncio.get_running_loop()
            run.task.add_done_callback(
                lambda _: loop.call_later(FINISHED_RUN_TTL, self._runs.pop, run.run_id, None)
            )
        return followed

    def get(self, run_id: str) -> FollowedRun | None:
        """Return the tracked run with this id, if it is still kept."""
        return self._runs.get(run_id)

    def attach(self, followed: FollowedRun) -> None:
        """Count a new follower and call off a pending cancellation."""
        followed.followers += 1
        if followed.cancel_timer is not None:
            followed.cancel_timer.cancel()
            followed.cancel_timer = None

    def detach(self, followed: FollowedRun) -> None:
        """Count a follower gone; cancel the run after the grace if it goes on unfollowed."""
        followed.followers -= 1
        if followed.followers > 0 or followed.run.done:
            return
        if self.resume_grace <= 0:
            followed.run.cancel()
        else:
            followed.cancel_timer = asyncio.get_running_loop().call_later(
                self.resume_grace, followed.run.cancel
            )

"""The outcome of the last real model call: the model's last-known reachability for /ready."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from react_agent.runs.events.listeners import ListenedRun, ModelCalled
from react_agent.timestamps import now_timestamp

ANSWERED_ERRORS = frozenset({"LLM_BAD_REQUEST", "LLM_RATE_LIMITED"})
"""Failures the LLM server itself answered: it is reachable, it refused this one call."""


@dataclass(frozen=True)
class ModelCallOutcome:
    """How one model call ended."""

    ok: bool
    """The call returned an answer."""
    reachable: bool
    """The server answered (an answer, a 4xx or a 429), as opposed to no answer at all."""
    timestamp: str
    """When it ended, local time, as every timestamp the service reports."""
    monotonic: float
    """When it ended, on the monotonic clock (for its age)."""
    error_type: str | None = None
    error: str | None = None


class ModelReachability:
    """A run listener (runs/events/listeners) that keeps the outcome of the model's last call.

    Learnt from the `ModelCalled` events of the calls that answer questions, so knowing
    costs no call of its own (no paid request just to ask whether the server is up). A
    cancelled call, or a failure that is not the server's (a bug of ours), says nothing
    about the server and is not recorded.
    """

    def __init__(self) -> None:
        self.last: ModelCallOutcome | None = None
        self.calls = 0
        self.failures = 0

    def on_run_event(self, run: ListenedRun, event: Any) -> None:
        """Record the end of a model call; every other event is not about the model."""
        if isinstance(event, ModelCalled):
            self.record(event)

    def record(self, call: ModelCalled) -> None:
        """Record one model call's outcome (see the class docstring for what is skipped)."""
        if call.outcome == "ok":
            self.calls += 1
            self.last = ModelCallOutcome(True, True, now_timestamp(), time.monotonic())
            return
        if call.outcome != "error" or not (call.error_type or "").startswith("LLM_"):
            return
        self.calls += 1
        self.failures += 1
        self.last = ModelCallOutcome(
            False,
            call.error_type in ANSWERED_ERRORS,
            now_timestamp(),
            time.monotonic(),
            call.error_type,
            call.error,
        )

    def report(self) -> dict[str, Any]:
        """Return what /ready says of the model: reachable at its last call, and that call.

        `ok` is None before any call; then the last call's outcome and age, and the
        calls and failures so far.
        """
        last = self.last
        if last is None:
            return {"ok": None, "last_call": None, "calls": 0, "failures": 0}
        last_call: dict[str, Any] = {
            "ok": last.ok,
            "timestamp": last.timestamp,
            "age_seconds": round(time.monotonic() - last.monotonic, 1),
        }
        if last.error_type is not None:
            last_call.update(error_type=last.error_type, error=last.error)
        return {
            "ok": last.reachable,
            "last_call": last_call,
            "calls": self.calls,
            "failures": self.failures,
        }

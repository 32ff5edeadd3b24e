"""The outcome of the last real model call: the model's last-known reachability for /ready."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from react_agent.errors import classify_exception
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


class ModelCallOutcomes(BaseCallbackHandler):
    """A callback on the chat model that keeps the outcome of its last finished call.

    Recorded from the calls that answer questions, so knowing costs no call of its own
    (no paid request just to ask whether the server is up). A cancelled call says nothing
    about the server and is not recorded.
    """

    run_inline = True
    """Called right where the event happens: no thread, no task (it only stores a result)."""

    def __init__(self) -> None:
        super().__init__()
        self.last: ModelCallOutcome | None = None
        self.calls = 0
        self.failures = 0

    @property
    def ignore_chat_model(self) -> bool:
        """Skip the start of each call (only its end matters here).

        Without this, langchain renders the prompt as text for `on_llm_start`: CPU spent
        on every model call for nothing.
        """
        return True

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Record a call that returned an answer."""
        self.calls += 1
        self.last = ModelCallOutcome(True, True, now_timestamp(), time.monotonic())

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Record a call that failed, classified as the error a client would see."""
        if isinstance(error, asyncio.CancelledError):
            return
        problem = classify_exception(error)
        if not problem.error_type.startswith("LLM_"):
            return  # not the server's doing (a bug of ours, say): nothing learnt about it
        self.calls += 1
        self.failures += 1
        self.last = ModelCallOutcome(
            False,
            problem.error_type in ANSWERED_ERRORS,
            now_timestamp(),
            time.monotonic(),
            problem.error_type,
            problem.detail,
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

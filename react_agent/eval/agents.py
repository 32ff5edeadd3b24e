"""Who answers a golden question: the agent in this process, or a running service over HTTP."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from react_agent.access.actor import Actor
from react_agent.access.scope import Scope
from react_agent.errors import ServiceError
from react_agent.graph.node_names import AGENT
from react_agent.runs.events.events import RunResult
from react_agent.runs.runner import AgentRunner

EVAL_USER = "eval"
"""The user id evaluation runs ask as (their threads are `eval:<question id>-<random>`)."""


@dataclass
class AgentAnswer:
    """What one question's conversation produced, summed over its turns where it is a cost."""

    answer: str = ""
    sql: str | None = None
    """The last statement of the scored turn that ran well (the final data's `sql`)."""
    sqls: list[dict[str, Any]] = field(default_factory=list)
    """Every run_sql of the scored turn with its status (ok, refused, error)."""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    error_type: str | None = None
    """The UPPER_SNAKE code of the run's failure (RUN_TIMEOUT, …), None when it answered."""
    error: str = ""

    def add_turn(self, data: dict[str, Any]) -> None:
        """Take one turn's final data (as the API gives it) into account."""
        meta = data.get("react_agent_meta") or {}
        usage = meta.get("usage") or {}
        self.answer = str(data.get("response") or "")
        self.sql = data.get("sql")
        self.sqls = list(data.get("sqls") or [])
        self.model_calls += sum(1 for node in meta.get("execution_path") or [] if node == AGENT)
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)

    def fail(self, error_type: str, error: str) -> None:
        """Record the failure that ended the conversation."""
        self.error_type, self.error = error_type, error


class GoldenAgent(Protocol):
    """Answers a conversation of one or more turns on a fresh thread."""

    @property
    def user_id(self) -> str:
        """Who asks (the threads' owner): EVAL_USER, or the `--as` user."""
        ...

    async def converse(self, turns: Sequence[str], thread_id: str) -> AgentAnswer:
        """Ask each turn in order on `thread_id`; stop at the first failure."""
        ...


def new_thread_id(question_id: str, user_id: str = EVAL_USER) -> str:
    """Return a fresh thread of `user_id` for one golden question."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in question_id)[:60]
    return f"{user_id}:{safe}-{uuid.uuid4().hex[:12]}"


def _turn_data(result: RunResult) -> dict[str, Any]:
    """Return the parts of the final data the evaluation reads, from a run's result."""
    return {
        "response": result.answer,
        "sql": result.sql,
        "sqls": result.sqls,
        "react_agent_meta": {"execution_path": result.execution_path, "usage": result.usage},
    }


@dataclass
class InProcessAgent:
    """The agent of this process (react_agent.service.assembly), asked through its runner.

    With an `actor` and `scope` (an evaluation `--as` a user) every turn runs as that user.
    """

    runner: AgentRunner
    actor: Actor | None = None
    scope: Scope | None = None

    @property
    def user_id(self) -> str:
        """Who asks: the actor's user, else EVAL_USER."""
        return self.actor.user_id if self.actor is not None else EVAL_USER

    async def converse(self, turns: Sequence[str], thread_id: str) -> AgentAnswer:
        """Ask each turn in order on `thread_id`; stop at the first failure."""
        answer = AgentAnswer()
        started = time.perf_counter()
        try:
            for turn in turns:
                run = await self.runner.start(turn, thread_id, scope=self.scope, actor=self.actor)
                answer.add_turn(_turn_data(await run.result()))
        except ServiceError as exc:
            answer.fail(exc.error_type, exc.detail)
        answer.seconds = time.perf_counter() - started
        return answer


@dataclass
class HttpAgent:
    """A running service, asked through its legacy sync endpoint."""

    client: httpx.AsyncClient
    url: str
    api_key: str | None = None
    user_id: str = EVAL_USER
    """Who asks (`--as USER`; the key must be allowed to act for that user)."""

    async def converse(self, turns: Sequence[str], thread_id: str) -> AgentAnswer:
        """Ask each turn in order on `thread_id`; stop at the first failure."""
        answer = AgentAnswer()
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        endpoint = self.url.rstrip("/") + "/api/v0/ask_react_agent"
        started = time.perf_counter()
        for turn in turns:
            body = {"question": turn, "thread_id": thread_id, "user_id": self.user_id}
            try:
                response = await self.client.post(endpoint, json=body, headers=headers)
                envelope = response.json()
            except httpx.TimeoutException as exc:
                answer.fail("RUN_TIMEOUT", f"no answer over HTTP in time: {exc}")
                break
            except (httpx.HTTPError, ValueError) as exc:
                answer.fail("HTTP_ERROR", f"{type(exc).__name__}: {exc}")
                break
            data = envelope.get("data") if isinstance(envelope, dict) else None
            if response.status_code != 200 or not isinstance(data, dict):
                data = data if isinstance(data, dict) else {}
                answer.fail(
                    str(data.get("error_type") or f"HTTP_{response.status_code}"),
                    str(data.get("error") or response.text[:300]),
                )
                break
            answer.add_turn(data)
        answer.seconds = time.perf_counter() - started
        return answer

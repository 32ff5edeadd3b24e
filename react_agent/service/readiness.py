"""Readiness: can this process answer a question now, part by part (`GET /ready`)."""

from __future__ import annotations

import asyncio
from typing import Any

from react_agent.errors import ServiceError
from react_agent.service.components import check_components
from react_agent.service.state import AgentService

REQUIRED = ("data_database", "checkpointer", "agent")
"""The parts without which no question can be answered: any of them down is a 503 (the
first one down in this order gives its code).

The memory is not among them (the agent answers without examples), nor the model's
last-known reachability: every instance shares one model server, so taking them all out of
a load balancer for a past failure helps nobody and leaves no call to notice its return;
the agent's own check (an LLM configured, the runner built) is what this process controls.
"""


async def check_readiness(
    service: AgentService, *, timeout: float
) -> tuple[dict[str, Any], ServiceError | None]:
    """Check each part now; return the report and the first required part's problem, if any.

    The data database and a PostgreSQL checkpointer are pinged, the memory reads its
    revision (one row), and the model is reported from its last real call (never a call
    of its own, which would cost money on a paid API).

    Args:
        service: The service to check.
        timeout: Seconds each ping may take; the pings run concurrently.

    """
    problems, memory_problem = await asyncio.gather(
        check_components(service, timeout=timeout), _memory_problem(service, timeout)
    )
    agent_problem = None
    if service.runner is None:
        agent_problem = problems.get("llm") or _not_open("agent")
    parts: dict[str, Any] = {
        "agent": _part(agent_problem, required=True),
        "data_database": _part(problems.get("data_database"), required=True),
        "checkpointer": _part(
            problems.get("checkpointer")
            or (None if service.checkpointer is not None else _not_open("checkpointer")),
            required=True,
        ),
        "memory": _part(memory_problem, required=False),
        "model": {**service.model_reachability.report(), "required": False},
    }
    down = [name for name in REQUIRED if not parts[name]["ok"]]
    report = {"ready": not down, "parts": parts}
    if not down:
        return report, None
    first = {"agent": agent_problem}.get(down[0]) or problems.get(down[0]) or _not_open(down[0])
    # Always 503, whatever the part's own status: this process cannot answer now. Whether
    # asking again can help is the problem's own (a setting to change: never).
    return report, ServiceError(
        503, first.error_type, first.detail, can_retry=first.can_retry, **first.params
    )


async def _memory_problem(service: AgentService, timeout: float) -> ServiceError | None:
    """Return why the memory cannot be read now, or None when one row comes back in time."""
    if service.memory is None:
        return service.memory_problem or _not_open("memory")
    try:
        async with asyncio.timeout(timeout):
            await service.memory.examples.revision()
    except TimeoutError:
        return ServiceError(503, "MEMORY_UNAVAILABLE", f"memory: no answer within {timeout:g} s")
    except Exception as exc:
        return ServiceError(503, "MEMORY_UNAVAILABLE", f"memory database: {exc}")
    return None


def _part(problem: ServiceError | None, *, required: bool) -> dict[str, Any]:
    """Return one part's entry: ok, whether it is required, and what is wrong."""
    if problem is None:
        return {"ok": True, "required": required}
    return {
        "ok": False,
        "required": required,
        "error_type": problem.error_type,
        "error": problem.detail,
    }


def _not_open(part: str) -> ServiceError:
    """Return the 503 of a part that was never opened (its start-up failed)."""
    if part == "agent":
        return ServiceError(503, "AGENT_NOT_READY", "the agent is not running", can_retry=True)
    codes = {"checkpointer": "CHECKPOINTER_UNAVAILABLE", "memory": "MEMORY_UNAVAILABLE"}
    error_type = codes.get(part, "DATABASE_UNAVAILABLE")
    return ServiceError(503, error_type, f"the {part.replace('_', ' ')} is not open")

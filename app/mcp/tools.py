"""What the MCP tools do: ask the agent (and answer its pauses), list and describe tables.

A run that pauses (a clarifying question, SQL waiting for approval) is put to the person
through the host when it can ask (MCP elicitation: `ask_person`), and the run goes on with
the answer; otherwise the pause is the tool's result, and `answer_pending` resumes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.asking.accept import Caller, accept_question
from app.asking.access import actor_and_scope, with_key_user
from app.asking.replies.approval_data import approval_fields
from app.asking.start import start_run
from app.asking.thread_ids import ThreadIdClock
from app.asking.validation import AskRequest
from app.http.auth import ApiKey
from app.http.ids import GUEST_USER_ID
from app.openai_compat.replies import TABLE_ROWS, step_line, usage_body
from react_agent.access.scope import Scope
from react_agent.approval.decisions import ApprovalDecision
from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError, bad_request
from react_agent.guard.sql_guard import is_table_allowed
from react_agent.results.answer_check import unsupported_note
from react_agent.results.candidate_groups import confidence_note
from react_agent.runs.events.events import NodeFinished, RunResult
from react_agent.service import AgentService

StepReporter = Callable[[int, str], Awaitable[None]]
"""Called with each step's number and its line ("⚙️ 执行查询 run_sql") while a run goes."""
PersonAsker = Callable[[dict[str, Any]], Awaitable[ApprovalDecision | None]]
"""Puts a pause to the person through the host; None when they declined or cancelled."""
MAX_PAUSES = 10
"""Most pauses one tool call puts to the person before it returns the pause instead."""


@dataclass
class DataTools:
    """The tools over one agent service; `get_service` returns it once it is built."""

    get_service: Callable[[], AgentService]
    clock: ThreadIdClock

    async def ask_data(
        self,
        question: str,
        conversation_id: str | None,
        user_id: str | None,
        *,
        key: ApiKey | None,
        report_step: StepReporter,
        ask_person: PersonAsker | None = None,
        dataset_id: str | None = None,
    ) -> dict[str, Any]:
        """Ask the agent with the ask endpoint's rules; return answer, SQL, rows and usage."""
        payload = {
            "question": question,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "dataset_id": dataset_id,  # #50.3: kept by the conversation from then on
        }
        ask = await self._accept(Caller(payload, key, surface="mcp"))
        return await self._answer(ask, report_step, ask_person)

    async def answer_pending(
        self,
        conversation_id: str,
        decision: ApprovalDecision,
        user_id: str | None,
        *,
        key: ApiKey | None,
        report_step: StepReporter,
        ask_person: PersonAsker | None = None,
    ) -> dict[str, Any]:
        """Resume a conversation's pause with the person's decision or answer."""
        # A resume of the conversation's pause (its owner's, unless user_id says otherwise).
        payload = {"question": "-", "conversation_id": conversation_id, "user_id": user_id}
        ask = await self._accept(Caller(payload, key, surface="mcp", decision=decision))
        return await self._answer(ask, report_step, ask_person)

    async def _answer(
        self,
        ask: AskRequest,
        report_step: StepReporter,
        ask_person: PersonAsker | None,
    ) -> dict[str, Any]:
        """Run the question (or resume), putting each pause to the person while they answer."""
        result = await self._run(ask, None, report_step)
        for _ in range(MAX_PAUSES):
            if result.approval is None or ask_person is None:
                break
            decision = await ask_person(result.approval)
            if decision is None:
                break  # declined or cancelled: the pause is the result, answer_pending later
            result = await self._run(ask, decision, report_step)
        if result.approval is not None:
            fields = approval_fields(result.approval, ask.thread_id, ask.lang)
            return {**fields, "conversation_id": ask.thread_id, "usage": usage_body(result.usage)}
        records = result.records or {}
        reply = {
            "answer": result.answer,
            "sql": result.sql if result.show_sql else None,
            "columns": records.get("columns", []),
            "rows": (records.get("rows") or [])[:TABLE_ROWS],
            "total_row_count": records.get("total_row_count", 0),
            "conversation_id": ask.thread_id,
            "usage": usage_body(result.usage),
        }
        notes = [unsupported_note(result.answer_check), confidence_note(result.confidence)]
        if any(notes):
            # Figures of the answer that no row holds; how many SQL candidates agree.
            reply["note"] = "\n".join(note for note in notes if note)
        return reply

    async def _run(
        self, ask: AskRequest, resume: ApprovalDecision | None, report_step: StepReporter
    ) -> RunResult:
        run = await start_run(self.get_service().require_runner(), ask, resume=resume)
        try:
            async for _, event in run.follow(0):
                if isinstance(event, NodeFinished):
                    await report_step(event.step, step_line(event, ask.lang).strip())
            return await run.outcome()
        finally:
            run.cancel()  # a no-op once the run is over; stops it when the caller went away

    async def _accept(self, caller: Caller) -> AskRequest:
        """Accept the tool's question as every surface does (accept.accept_question)."""
        return await accept_question(self.get_service(), self.clock, caller)

    async def list_tables(self, key: ApiKey | None = None) -> list[str]:
        """Return the tables the key's user may read (SQL_ALLOWED_TABLES and the policy)."""
        database = self._database()
        allowed = self.get_service().settings.allowed_tables
        scope = self._scope(key)
        return [
            name
            for name in await database.list_tables()
            if is_table_allowed(name, database.dialect, allowed) and scope.can_read(name)
        ]

    async def describe_table(self, name: str, key: ApiKey | None = None) -> dict[str, Any]:
        """Return a readable table's readable columns and row count, or raise 404."""
        database = self._database()
        allowed = self.get_service().settings.allowed_tables
        scope = self._scope(key)
        infos = []
        if is_table_allowed(name, database.dialect, allowed) and scope.can_read(name):
            infos = await database.describe_tables([name])
        if not infos:
            raise ServiceError(404, "TABLE_NOT_FOUND", f"no readable table {name!r}")
        info = infos[0]
        readable = set(scope.readable_columns(info.name, [c for c, _ in info.columns]))
        return {
            "name": info.name,
            "columns": [
                {"name": column, "type": kind}
                for column, kind in info.columns
                if column in readable
            ],
            # The whole table's count: not shown to a caller whose rows are filtered.
            "row_count": None if scope.filters_rows(info.name) else info.row_count,
        }

    def _scope(self, key: ApiKey | None) -> Scope:
        """Return the scope of the key's user (its one user, else guest); all without a policy."""
        return self.caller_scope(key) or Scope.allow_all()

    def caller_scope(self, key: ApiKey | None) -> Scope | None:
        """Return the scope of the key's user (its one user, else guest); None: no policy."""
        user = with_key_user({}, key).get("user_id") or GUEST_USER_ID
        _, scope = actor_and_scope(self.get_service(), user, key)
        return scope

    def _database(self) -> SQLDatabase:
        service = self.get_service()
        if service.database is None:
            raise service.problems.get("data_database") or ServiceError(
                503, "DATABASE_UNAVAILABLE", "the data database is not open", can_retry=True
            )
        return service.database


def decision_from_tool(
    interrupt_id: str, action: str, text: str | None, sql: str | None, comment: str | None
) -> ApprovalDecision:
    """Return the decision answer_pending's arguments make, or raise 400 RESUME_INVALID."""
    if action not in ("approve", "edit", "reject", "answer"):
        raise _invalid("action must be approve, edit, reject or answer")
    if action == "answer" and not (text or "").strip():
        raise _invalid("text: the answer is required with action answer")
    if action == "edit" and not (sql or "").strip():
        raise _invalid("sql: the edited SQL is required with action edit")
    return ApprovalDecision(
        interrupt_id,
        action,  # type: ignore[arg-type]
        sql=(sql or "").strip().rstrip(";").strip() or None if action == "edit" else None,
        comment=(comment or "").strip() or None,
        text=(text or "").strip() or None if action == "answer" else None,
    )


def _invalid(reason: str) -> ServiceError:
    return bad_request("RESUME_INVALID", reason, reason=reason)

"""What the MCP tools do: ask the agent, list and describe the tables it may read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.asking.quotas import actor_for, admit_question
from app.asking.thread_ids import ThreadIdClock, unique_new_thread_id
from app.asking.validation import validate_ask_request
from app.auth import ApiKey
from app.openai_compat.replies import TABLE_ROWS, step_line
from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError
from react_agent.runs.events import NodeFinished
from react_agent.service import AgentService
from react_agent.tools.sql_guard import is_table_allowed

StepReporter = Callable[[int, str], Awaitable[None]]
"""Called with each step's number and its line ("⚙️ 执行查询 run_sql") while a run goes."""


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
    ) -> dict[str, Any]:
        """Ask the agent with the ask endpoint's rules; return answer, SQL and first rows."""
        payload = {
            "question": question,
            "conversation_id": conversation_id,
            "user_id": user_id or _default_user(key, conversation_id),
        }
        ask = validate_ask_request(payload, self.clock)
        if key is not None and not key.allows(ask.user_id):
            raise ServiceError(403, "FORBIDDEN", f"this API key may not access user {ask.user_id}")
        service = self.get_service()
        await admit_question(service, actor_for(ask.user_id, key))
        thread_id = ask.thread_id
        if ask.is_new_thread and service.run_events is not None:
            # Reserved in the shared store, as the ask routes do: unique across processes.
            thread_id = await unique_new_thread_id(
                self.clock, service.run_events, ask.user_id, thread_id
            )
        run = await service.require_runner().start(ask.question, thread_id, lang=ask.lang)
        try:
            async for _, event in run.follow(0):
                if isinstance(event, NodeFinished):
                    await report_step(event.step, step_line(event, ask.lang).strip())
            result = await run.outcome()
        finally:
            run.cancel()  # a no-op once the run is over; stops it when the caller went away
        records = result.records or {}
        return {
            "answer": result.answer,
            "sql": result.sql,
            "columns": records.get("columns", []),
            "rows": (records.get("rows") or [])[:TABLE_ROWS],
            "total_row_count": records.get("total_row_count", 0),
            "conversation_id": thread_id,
        }

    async def list_tables(self) -> list[str]:
        """Return the tables the agent's SQL may read (SQL_ALLOWED_TABLES applies)."""
        database = self._database()
        allowed = self.get_service().settings.allowed_tables
        return [
            name
            for name in await database.list_tables()
            if is_table_allowed(name, database.dialect, allowed)
        ]

    async def describe_table(self, name: str) -> dict[str, Any]:
        """Return a readable table's columns and row count, or raise 404 for any other."""
        database = self._database()
        allowed = self.get_service().settings.allowed_tables
        infos = []
        if is_table_allowed(name, database.dialect, allowed):
            infos = await database.describe_tables([name])
        if not infos:
            raise ServiceError(404, "TABLE_NOT_FOUND", f"no readable table {name!r}")
        info = infos[0]
        return {
            "name": info.name,
            "columns": [{"name": column, "type": kind} for column, kind in info.columns],
            "row_count": info.row_count,
        }

    def _database(self) -> SQLDatabase:
        service = self.get_service()
        if service.database is None:
            raise service.problems.get("data_database") or ServiceError(
                503, "DATABASE_UNAVAILABLE", "the data database is not open", can_retry=True
            )
        return service.database


def _default_user(key: ApiKey | None, conversation_id: str | None) -> str | None:
    # A conversation names its own user; else a key bound to users speaks for the first of
    # them; else None, which the ask rules make "guest".
    if conversation_id or key is None or not key.users:
        return None
    return sorted(key.users)[0]

"""What the MCP tools do: ask the agent, list and describe the tables it may read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.asking.access import actor_and_scope
from app.asking.thread_ids import ThreadIdClock, unique_new_thread_id
from app.asking.validation import validate_ask_request
from app.auth import ApiKey
from app.openai_compat.replies import TABLE_ROWS, step_line
from react_agent.access.scope import Scope
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
        thread_id = ask.thread_id
        if ask.is_new_thread and service.run_events is not None:
            # Reserved in the shared store, as the ask routes do: unique across processes.
            thread_id = await unique_new_thread_id(
                self.clock, service.run_events, ask.user_id, thread_id
            )
        actor, scope = actor_and_scope(service, ask.user_id, key)
        run = await service.require_runner().start(
            ask.question, thread_id, lang=ask.lang, scope=scope, actor=actor
        )
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
            "sql": result.sql if result.show_sql else None,
            "columns": records.get("columns", []),
            "rows": (records.get("rows") or [])[:TABLE_ROWS],
            "total_row_count": records.get("total_row_count", 0),
            "conversation_id": thread_id,
        }

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
            "row_count": info.row_count,
        }

    def _scope(self, key: ApiKey | None) -> Scope:
        """Return the scope of the key's user (its first user, else guest); all without a policy."""
        user = _default_user(key, None) or "guest"
        _, scope = actor_and_scope(self.get_service(), user, key)
        return scope or Scope.allow_all()

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

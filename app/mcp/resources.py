"""What the MCP resources hold, for one caller: the schema, each table, metrics, examples."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from react_agent.access.scope import Scope
from react_agent.access.scoping.reach import reads_within
from react_agent.catalog.semantic.model import Instruction
from react_agent.catalog.view import (
    ScopedReadable,
    TableAllowList,
    ViewTable,
    visible_metrics,
    visible_tables,
)
from react_agent.errors import ServiceError
from react_agent.memory.examples import SQL, VERIFIED
from react_agent.service import AgentService

SCHEME = "sqlagent://"
SCHEMA_URI = f"{SCHEME}schema"
TABLE_URI_PREFIX = f"{SCHEMA_URI}/"
METRICS_URI = f"{SCHEME}metrics"
EXAMPLES_URI = f"{SCHEME}examples"
INSTRUCTIONS_URI = f"{SCHEME}instructions"
JSON_TYPE = "application/json"


@dataclass(frozen=True)
class ResourceEntry:
    """One resource as resources/list shows it."""

    uri: str
    name: str
    description: str


@dataclass(frozen=True)
class CallerView:
    """The catalogue as one caller sees it: tables, metrics and the scope behind them."""

    tables: tuple[ViewTable, ...]
    metrics: tuple[Any, ...]
    scope: Scope
    built_at: str | None
    instructions: tuple[Instruction, ...] = ()
    """The business instructions in force whose tables the caller may read."""


@dataclass
class DataResources:
    """The resources of the MCP server over one agent service, scoped per caller."""

    get_service: Callable[[], AgentService]

    async def view(self, scope: Scope | None) -> CallerView:
        """Return what `scope` (None: no policy) sees of the catalogue; 404 when it is off."""
        service = self.get_service()
        if service.catalog is None:
            raise ServiceError(
                404, "SCHEMA_CATALOG_OFF", "the schema catalogue is off (SCHEMA_CATALOG=false)"
            )
        snapshot = await service.catalog.current()
        effective = scope or Scope.allow_all()
        if snapshot is None:
            return CallerView((), (), effective, None)
        readable = ScopedReadable(TableAllowList(service.settings.allowed_tables), scope)
        tables = visible_tables(snapshot.catalog, snapshot.semantics, readable)
        metrics = visible_metrics(snapshot.semantics, tables)
        names = {table.name.lower() for table in tables}
        day = service.settings.instructions_as_of or date.today()
        rules = tuple(
            rule
            for rule in snapshot.semantics.instructions
            if rule.holds_on(day) and all(t.lower() in names for t in rule.tables)
        )
        return CallerView(
            tuple(tables), tuple(metrics), effective, snapshot.catalog.built_at, rules
        )

    async def entries(self, scope: Scope | None) -> list[ResourceEntry]:
        """Return the resources `scope` may read: the schema, one per table, metrics, examples."""
        view = await self.view(scope)
        listed = [
            ResourceEntry(SCHEMA_URI, "schema", "The tables you may read, with their columns"),
            ResourceEntry(METRICS_URI, "metrics", "Named business measures and their SQL"),
            ResourceEntry(EXAMPLES_URI, "examples", "Verified question→SQL examples"),
            ResourceEntry(INSTRUCTIONS_URI, "instructions", "Business rules for every question"),
        ]
        for table in view.tables:
            listed.append(
                ResourceEntry(
                    f"{TABLE_URI_PREFIX}{table.name}",
                    f"table {table.name}",
                    table.description or f"The table {table.name}",
                )
            )
        return listed

    async def read(self, uri: str, scope: Scope | None) -> str:
        """Return the JSON text of `uri` for `scope`; 404 RESOURCE_NOT_FOUND for the unknown."""
        view = await self.view(scope)
        if uri == SCHEMA_URI:
            data: Any = {
                "built_at": view.built_at,
                "tables": [_table_summary(table) for table in view.tables],
            }
        elif uri.startswith(TABLE_URI_PREFIX):
            name = uri[len(TABLE_URI_PREFIX) :].lower()
            table = next((t for t in view.tables if t.name.lower() == name), None)
            if table is None:
                raise _not_found(uri)
            data = _table_detail(table, view.scope)
        elif uri == METRICS_URI:
            data = {
                "metrics": [
                    {"name": m.name, "sql": m.sql, "description": m.description}
                    for m in view.metrics
                ]
            }
        elif uri == INSTRUCTIONS_URI:
            data = {"instructions": [rule.as_dict() for rule in view.instructions]}
        elif uri == EXAMPLES_URI:
            data = {"examples": await self._examples(view)}
        else:
            raise _not_found(uri)
        return json.dumps(data, ensure_ascii=False, indent=1)

    async def _examples(self, view: CallerView) -> list[dict[str, Any]]:
        """Return the verified question→SQL examples whose SQL reads within the caller's scope."""
        service = self.get_service()
        if service.memory is None:
            return []
        visible = {table.name.lower() for table in view.tables}
        items = await service.memory.examples.all_items((VERIFIED,))
        dialect = service.database.dialect if service.database is not None else None
        return [
            {"id": item.id, "question": item.question, "sql": item.content}
            for item in items
            if item.training_data_type == SQL
            and reads_within(item.content, view.scope, dialect)
            and _reads_only(item.content, visible, dialect)
        ]


def _reads_only(sql: str, visible: set[str], dialect: str | None) -> bool:
    """Whether `sql` names only tables of `visible` (SQL_ALLOWED_TABLES, the file's hidden)."""
    return reads_within(sql, Scope(tables=frozenset(visible)), dialect)


def _table_summary(table: ViewTable) -> dict[str, Any]:
    return {
        "name": table.name,
        "uri": f"{TABLE_URI_PREFIX}{table.name}",
        "description": table.description,
        "synonyms": list(table.synonyms),
        "row_count": table.row_count,
        "columns": [column.name for column in table.columns],
    }


def _table_detail(table: ViewTable, scope: Scope) -> dict[str, Any]:
    # A row filter hides rows, so the catalogue's values (read over every row) could name
    # values the caller may not see: a filtered table's values are not shown.
    filtered = table.name.lower() in {name.lower() for name in scope.row_filters}
    sensitive = scope.sensitive(table.name)
    return {
        "name": table.name,
        "description": table.description,
        "synonyms": list(table.synonyms),
        "row_count": None if filtered else table.row_count,
        "related_tables": list(table.neighbours),
        "columns": [
            {
                "name": column.name,
                "type": column.type,
                "description": column.description,
                "synonyms": list(column.synonyms),
                "primary_key": column.primary_key,
                "references": column.references,
                "values": (
                    list(column.values)
                    if column.values is not None
                    and not filtered
                    and column.name.lower() not in sensitive
                    else None
                ),
            }
            for column in table.columns
        ],
    }


def _not_found(uri: str) -> ServiceError:
    return ServiceError(404, "RESOURCE_NOT_FOUND", f"no readable resource {uri!r}")

"""Suggested questions, with no model call: stored examples first, then the sample's starters.

The empty page offers starters and an answer offers follow-ups. Both come from the
questions of stored `sql` examples (the ones nearest the last question, for follow-ups),
keeping only those whose SQL reads what the caller may read; the embedded sample database
adds a few starters of its own (config/sample_questions.json) so a new install has some.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from config.sample_questions import sample_questions
from react_agent.guard.sql_guard import QueryRejected, parse_statement
from react_agent.memory.examples import SQL, MemoryItem
from react_agent.memory.store import Memory

MEMORY_CANDIDATES = 50
"""Stored examples looked at per request (newest, or nearest the last question)."""

TableFilter = Callable[[str], bool]
"""Whether the caller may read a table (the scope's `can_read`)."""


async def suggest_questions(
    memory: Memory | None,
    *,
    dialect: str,
    lang: str,
    limit: int,
    after: str | None = None,
    readable: TableFilter | None = None,
    sample: bool = False,
) -> list[dict[str, str]]:
    """Return up to `limit` suggested questions, each `{question, source}`.

    Args:
        memory: The stored examples (None: the memory is off).
        dialect: The data database's sqlglot dialect, to read each example's tables.
        lang: The language of the sample's starters.
        limit: How many suggestions at most.
        after: The last question asked: follow-ups nearest it, never it again.
        readable: Which tables the caller may read; None for every table.
        sample: Whether the data is the embedded sample (its starters fill up the list).

    """
    seen = {(after or "").strip()}
    suggestions: list[dict[str, str]] = []
    for item in await _candidates(memory, after):
        question = (item.question or "").strip()
        if not question or question in seen or not _reads_only(item.content, dialect, readable):
            continue
        seen.add(question)
        suggestions.append({"question": question, "source": "memory"})
    if sample:
        for question in sample_questions(lang):
            if question not in seen:
                seen.add(question)
                suggestions.append({"question": question, "source": "sample"})
    return suggestions[:limit]


async def _candidates(memory: Memory | None, after: str | None) -> list[MemoryItem]:
    if memory is None:
        return []
    if after and after.strip():
        items = await memory.retriever.search(after, MEMORY_CANDIDATES)
    else:
        items, _ = await memory.examples.query(
            page=1, page_size=MEMORY_CANDIDATES, training_data_type=SQL
        )
    return [item for item in items if item.training_data_type == SQL]


def _reads_only(sql: str, dialect: str, readable: TableFilter | None) -> bool:
    """Whether every table `sql` reads is readable (an unreadable query suggests nothing)."""
    try:
        root = parse_statement(sql, dialect)
    except QueryRejected:
        return False
    if readable is None:
        return True
    ctes = {cte.alias_or_name.lower() for cte in root.find_all(exp.CTE)}
    tables = {
        table.name.lower()
        for table in root.find_all(exp.Table)
        if table.name and (table.db or table.name.lower() not in ctes)
    }
    return all(readable(name) for name in tables)

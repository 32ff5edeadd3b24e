"""The schema the model gets: all of it when it fits the budget, else the question's tables."""

from __future__ import annotations

from datetime import date

from react_agent.catalog.caller_view import CallerView
from react_agent.catalog.semantic.model import Instruction
from react_agent.catalog.service import Snapshot
from react_agent.catalog.values import ValueLink
from react_agent.catalog.view import render_metrics, render_table, visible_metrics

TOP_K = 8
"""Most tables the retrieval step puts in the prompt (fewer when the budget is smaller)."""
FULL_HEADER = (
    "Schema: every table you may read is described below (columns, keys, descriptions, "
    "sample values), so you do not need list_tables or describe_tables."
)
PARTIAL_HEADER = (
    "Schema: the {shown} of {total} tables most relevant to this question are described "
    "below. If you need another table, call search_schema with words of the question; "
    "do not guess table or column names."
)
NEIGHBOURS_HEADER = (
    "Tables joined to those (call search_schema or describe_tables for their columns):"
)
VALUES_HEADER = "Words of the question found as stored values (use them in filters exactly):"
METRICS_HEADER = "Business metrics (use these definitions):"
INSTRUCTIONS_HEADER = (
    "Business instructions (always follow them; when your answer relies on one, cite its [id]):"
)
INSTRUCTIONS_SHARE = 0.5
"""Most of SCHEMA_PROMPT_BUDGET the instructions take; the rest is the schema's."""
RETRIEVED_CHARS = 4000
"""Most characters of the tables retrieved for a question when the whole schema does not
fit SCHEMA_PROMPT_BUDGET: the first prompt on a schema of 1,000 tables stays small."""
INSTRUCTIONS_ONLY_CHARS = 4000
"""Most characters of instructions when the schema is not in the prompt (budget 0)."""


class SchemaContext(CallerView):
    """What prompts and tools are told of the schema, for one caller's readable part.

    Built as its `CallerView` (catalog, budget_chars, readable, current, as_of).
    """

    def _full_text(self, snapshot: Snapshot) -> str:
        def render() -> str:
            tables = self._tables(snapshot)
            parts = [FULL_HEADER, *(render_table(t) for t in tables)]
            metrics = render_metrics(visible_metrics(snapshot.semantics, tables))
            return "\n".join([*parts, METRICS_HEADER, metrics] if metrics else parts)

        return self._cached(snapshot, "full", render)

    def instructions(self, snapshot: Snapshot) -> list[Instruction]:
        """Return the instructions in the caller's prompt: in force, tables readable, in budget."""
        day = self.as_of or date.today()
        readable = self.readable
        limit = (
            int(self.budget_chars * INSTRUCTIONS_SHARE)
            if self.budget_chars > 0
            else INSTRUCTIONS_ONLY_CHARS
        )
        room = limit - len(INSTRUCTIONS_HEADER)
        chosen = []
        for rule in snapshot.semantics.instructions:
            if not rule.holds_on(day):
                continue
            if readable is not None and not all(readable.can_read(t) for t in rule.tables):
                continue
            room -= len(render_instruction(rule)) + 1
            if room < 0:
                break
            chosen.append(rule)
        return chosen

    async def instruction_ids(self) -> list[str]:
        """Return the ids of the instructions the caller's prompt holds now."""
        snapshot = await self.catalog.current()
        if snapshot is None:
            return []
        return [rule.id for rule in self.instructions(snapshot)]

    async def prompt_section(self, question: str) -> str:
        """Return the schema part of the system prompt for `question` ("" before a build).

        The stable part (`stable_section`) then the question's own (`question_section`).
        """
        parts = (await self.stable_section(), await self.question_section(question))
        return "\n".join(part for part in parts if part)

    async def describes_tables(self) -> bool:
        """Whether the prompt describes the tables: a budget, and a catalogue built."""
        return self.budget_chars > 0 and await self.catalog.current() is not None

    async def stable_section(self) -> str:
        """Return what every question of the caller reads alike: instructions, whole schema.

        The instructions in force come first (the same for every question of the caller
        on a day), then the whole schema when it fits what is left of the budget; this part
        goes in the prompt's stable prefix, byte for byte the same from call to call.
        """
        snapshot = await self.catalog.current()
        if snapshot is None:
            return ""
        ruled = self._ruled(snapshot)
        if self.budget_chars <= 0 or not self._fits(snapshot, ruled):
            return ruled
        return "\n".join(part for part in (ruled, self._full_text(snapshot)) if part)

    async def question_section(self, question: str) -> str:
        """Return what `question` adds: its value links, or its tables (retrieval).

        Its tables when the whole schema does not fit; "" with budget 0 or before a build.
        """
        snapshot = await self.catalog.current()
        if snapshot is None or self.budget_chars <= 0:
            return ""
        links = self.value_links(snapshot, question)
        linked = "\n".join([VALUES_HEADER, *(link.describe() for link in links)]) if links else ""
        ruled = self._ruled(snapshot)
        if self._fits(snapshot, ruled):
            return linked
        budget = min(self.budget_chars, RETRIEVED_CHARS) - len(ruled)
        return self._selected(snapshot, question, links, linked, budget)

    def _ruled(self, snapshot: Snapshot) -> str:
        rules = self.instructions(snapshot)
        return "\n".join([INSTRUCTIONS_HEADER, *map(render_instruction, rules)]) if rules else ""

    def _fits(self, snapshot: Snapshot, ruled: str) -> bool:
        """Whether the whole schema fits the budget beside the instructions."""
        return len(self._full_text(snapshot)) + len(ruled) <= self.budget_chars

    def _selected(
        self,
        snapshot: Snapshot,
        question: str,
        links: list[ValueLink],
        linked: str,
        budget: int,
    ) -> str:
        by_name = {name: table for name, (table, _) in self._lookup(snapshot).items()}
        chosen = self._ranked(snapshot, question, links, TOP_K)
        header = PARTIAL_HEADER.format(shown="{shown}", total=len(by_name))
        used = len(header) + len(linked) + 200
        parts: list[str] = []
        for table in chosen:
            text = render_table(table)
            if used + len(text) > budget and parts:
                break
            parts.append(text)
            used += len(text) + 1
        shown = [t.name.lower() for t in chosen[: len(parts)]]
        neighbours = sorted(
            {n for name in shown for n in by_name[name].neighbours if n.lower() in by_name}
            - {by_name[name].name for name in shown}
        )
        sections = [header.format(shown=len(parts)), *parts]
        metrics = render_metrics(visible_metrics(snapshot.semantics, [by_name[n] for n in shown]))
        extras = [[METRICS_HEADER, metrics] if metrics else [], [linked] if linked else []]
        room = budget - len("\n".join(sections + [e for x in extras for e in x])) - 1
        listed = _within(neighbours, room - len(NEIGHBOURS_HEADER) - 1)
        if listed:
            sections += [NEIGHBOURS_HEADER, listed]
        return "\n".join(sections + [e for x in extras for e in x])


def render_instruction(rule: Instruction) -> str:
    """Return one instruction's line in the prompt: `- [id] text (tables: …)`."""
    tables = f" (tables: {', '.join(rule.tables)})" if rule.tables else ""
    return f"- [{rule.id}] {rule.text}{tables}"


def _within(names: list[str], room: int) -> str:
    """Return as many of `names` as fit in `room` characters, comma-separated."""
    text = ""
    for name in names:
        longer = f"{text}, {name}" if text else name
        if len(longer) > room:
            break
        text = longer
    return text


async def describe_search(context: SchemaContext, query: str) -> str:
    """Return what search_schema shows for `query`: the best tables, described."""
    found = await context.search(query)
    if not found:
        if await context.table_names() is None:
            return "The schema catalogue is still being built; use list_tables meanwhile."
        return "No table matches; try other words (a business term, a column, a value)."
    return "\n".join(render_table(table) for table in found)

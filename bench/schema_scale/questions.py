"""Questions about the generated schema, each with its gold tables and literal values."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench.schema_scale.schema import ATTRIBUTES, DOMAINS, KINDS, Table

_ATTRIBUTE_WORDS = {name: (zh, en) for name, _, zh, en in ATTRIBUTES}


@dataclass(frozen=True)
class Question:
    """A question, the tables that answer it, and the (table, column, value)s it names."""

    text: str
    language: str
    kind: str
    gold_tables: frozenset[str]
    gold_values: frozenset[tuple[str, str, str]] = frozenset()


def _attribute(table: Table, rng: random.Random) -> tuple[str, str]:
    names = [c.name for c in table.columns if c.name in _ATTRIBUTE_WORDS]
    return _ATTRIBUTE_WORDS[rng.choice(names)]


def _foreign_parent(table: Table) -> str | None:
    """Return the parent table of another domain this table points to, if any."""
    own = f"{DOMAINS[table.domain][0]}_detail"
    return next((c.references for c in table.columns if c.references not in (None, own)), None)


def build_questions(tables: list[Table], seed: int = 7) -> list[Question]:
    """Return 320 questions: single tables (zh, en), joins, and values (zh, en)."""
    rng = random.Random(seed)
    found: list[Question] = []
    for n in range(200):
        table = rng.choice(tables)
        domain, domain_zh = DOMAINS[table.domain]
        kind, kind_zh = KINDS[table.kind]
        zh, en = _attribute(table, rng)
        if n % 2 == 0:
            text = f"{domain_zh}{kind_zh}里{zh}最高的前10条是哪些？"
            found.append(Question(text, "zh", "table", frozenset({table.name})))
        else:
            text = f"Which {domain} {kind} records have the highest {en}?"
            found.append(Question(text, "en", "table", frozenset({table.name})))
    joined = [t for t in tables if _foreign_parent(t) is not None]
    for n in range(60):
        table = rng.choice(joined)
        parent = _foreign_parent(table) or ""
        other = next(d for d in DOMAINS if f"{d[0]}_detail" == parent)
        domain, domain_zh = DOMAINS[table.domain]
        kind, kind_zh = KINDS[table.kind]
        zh, en = _attribute(table, rng)
        if n % 2 == 0:
            text = f"按{other[1]}名称汇总{domain_zh}{kind_zh}的{zh}"
            found.append(Question(text, "zh", "join", frozenset({table.name, parent})))
        else:
            text = f"Total {en} of {domain} {kind} per {other[0]} name"
            found.append(Question(text, "en", "join", frozenset({table.name, parent})))
    valued = [t for t in tables if any(c.values for c in t.columns)]
    for n in range(60):
        table = rng.choice(valued)
        column = next(c for c in table.columns if c.values)
        value = rng.choice(column.values)
        domain, domain_zh = DOMAINS[table.domain]
        literal = frozenset({(table.name, column.name, value)})
        if n % 2 == 0:
            text = f"{value}的{domain_zh}有多少条？"
            found.append(Question(text, "zh", "value", frozenset({table.name}), literal))
        else:
            text = f"How many {domain} records are in category {value}?"
            found.append(Question(text, "en", "value", frozenset({table.name}), literal))
    return found

"""Golden sets: JSONL, one question a line, with the SQL whose result is the right answer."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from react_agent.errors import ServiceError

SAMPLE_GOLDEN_SET = Path(__file__).resolve().parent / "golden" / "sample.jsonl"
"""The set shipped for the sample database (react_agent/sample_data)."""


@dataclass(frozen=True)
class GoldenQuestion:
    """One question (or follow-up conversation, the last turn scored) and its gold SQL."""

    id: str
    turns: tuple[str, ...]
    gold_sql: str
    facts: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    difficulty: str = "unknown"
    lang: str | None = None

    @property
    def question(self) -> str:
        """Return the scored question: the last turn."""
        return self.turns[-1]

    def as_json(self) -> dict[str, Any]:
        """Return the question as one JSONL record."""
        record: dict[str, Any] = {"id": self.id}
        if len(self.turns) == 1:
            record["question"] = self.turns[0]
        else:
            record["turns"] = list(self.turns)
        record["gold_sql"] = self.gold_sql
        if self.facts:
            record["facts"] = list(self.facts)
        record.update(tags=list(self.tags), difficulty=self.difficulty)
        if self.lang:
            record["lang"] = self.lang
        return record


@dataclass
class _Problems:
    lines: list[str] = field(default_factory=list)

    def add(self, line_number: int, text: str) -> None:
        self.lines.append(f"line {line_number}: {text}")


def parse_golden_record(record: Any) -> GoldenQuestion:
    """Return the question a JSON record describes; raise ValueError saying what is wrong."""
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    turns = record.get("turns")
    if turns is None:
        turns = [record.get("question")]
    if not turns or not all(isinstance(t, str) and t.strip() for t in turns):
        raise ValueError("needs a non-empty `question` or a list of non-empty `turns`")
    for key in ("id", "gold_sql"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise ValueError(f"needs a non-empty string `{key}`")
    for key in ("facts", "tags"):
        value = record.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"`{key}` must be a list of strings")
    return GoldenQuestion(
        id=record["id"],
        turns=tuple(t.strip() for t in turns),
        gold_sql=record["gold_sql"].strip(),
        facts=tuple(record.get("facts", [])),
        tags=tuple(record.get("tags", [])),
        difficulty=str(record.get("difficulty") or "unknown"),
        lang=record.get("lang"),
    )


def read_golden_set(path: Path) -> list[GoldenQuestion]:
    """Read a golden set; raise ServiceError 400 GOLDEN_SET_INVALID listing every bad line."""
    problems = _Problems()
    questions: list[GoldenQuestion] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            question = parse_golden_record(json.loads(line))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError too
            problems.add(number, str(exc))
            continue
        if question.id in seen:
            problems.add(number, f"duplicate id {question.id!r}")
        seen.add(question.id)
        questions.append(question)
    if problems.lines or not questions:
        raise ServiceError(
            400, "GOLDEN_SET_INVALID", "; ".join(problems.lines) or f"{path} holds no questions"
        )
    return questions


def write_golden_set(path: Path, questions: Iterable[GoldenQuestion]) -> int:
    """Write questions as JSONL; return how many were written."""
    lines = [json.dumps(q.as_json(), ensure_ascii=False) for q in questions]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)

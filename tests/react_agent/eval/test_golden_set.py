"""The shipped golden set: well-formed, broad enough, and every gold SQL returns rows."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from react_agent.errors import ServiceError
from react_agent.eval.golden import SAMPLE_GOLDEN_SET, read_golden_set, write_golden_set
from react_agent.sample_data import SAMPLE_DB_PATH

QUESTIONS = read_golden_set(SAMPLE_GOLDEN_SET)


def test_the_set_has_80_or_more_questions_in_both_languages_with_follow_ups():
    languages = Counter(q.lang for q in QUESTIONS)
    assert len(QUESTIONS) >= 80
    assert languages["zh"] >= 40 and languages["en"] >= 40
    assert sum(len(q.turns) > 1 for q in QUESTIONS) >= 6
    tags = Counter(tag for q in QUESTIONS for tag in q.tags)
    assert {"count", "join", "time_window", "ratio", "top_n", "follow_up"} <= set(tags)
    assert {q.difficulty for q in QUESTIONS} == {"easy", "medium", "hard"}


@pytest.mark.parametrize("question", QUESTIONS, ids=[q.id for q in QUESTIONS])
def test_every_gold_sql_runs_on_the_sample_database_and_returns_rows(question):
    with sqlite3.connect(f"file:{SAMPLE_DB_PATH}?mode=ro", uri=True) as connection:
        rows = connection.execute(question.gold_sql).fetchall()
    assert rows
    assert any(value is not None for value in rows[0])


def test_a_set_round_trips_through_its_jsonl(tmp_path: Path):
    path = tmp_path / "copy.jsonl"
    assert write_golden_set(path, QUESTIONS) == len(QUESTIONS)
    assert read_golden_set(path) == QUESTIONS


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("not json", "line 1"),
        ('{"id": "a", "gold_sql": "SELECT 1"}', "question"),
        ('{"id": "a", "question": "q"}', "gold_sql"),
        ('{"id": "a", "turns": [], "gold_sql": "SELECT 1"}', "turns"),
        ('{"id": "a", "question": "q", "gold_sql": "SELECT 1", "facts": "x"}', "facts"),
        ("[1, 2]", "object"),
    ],
)
def test_a_bad_line_is_refused_with_its_line_number(tmp_path: Path, line: str, problem: str):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", "utf-8")
    with pytest.raises(ServiceError) as raised:
        read_golden_set(path)
    assert raised.value.error_type == "GOLDEN_SET_INVALID"
    assert problem in raised.value.detail


def test_duplicate_ids_are_refused(tmp_path: Path):
    record = json.dumps({"id": "a", "question": "q", "gold_sql": "SELECT 1"})
    path = tmp_path / "dup.jsonl"
    path.write_text(f"{record}\n{record}\n", "utf-8")
    with pytest.raises(ServiceError, match="duplicate id"):
        read_golden_set(path)

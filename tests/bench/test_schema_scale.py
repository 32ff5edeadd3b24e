"""The schema benchmark's generator: the size the issue asks for, and questions that fit it."""

from __future__ import annotations

from bench.schema_scale.questions import build_questions
from bench.schema_scale.schema import VALUE_COLUMNS, build_tables


def test_the_generated_schema_has_a_thousand_tables_and_about_fifteen_thousand_columns():
    tables = build_tables()
    names = {table.name for table in tables}

    assert len(tables) == len(names) == 1000
    assert 14_000 <= sum(len(t.columns) for t in tables) <= 16_000
    assert sum(1 for t in tables for c in t.columns if c.values) == VALUE_COLUMNS
    assert all(c.references in names for t in tables for c in t.columns if c.references)
    assert any("（" in t.comment for t in tables)  # zh and en in each comment


def test_every_question_names_existing_gold_tables_and_stored_values():
    tables = build_tables()
    by_name = {table.name: table for table in tables}
    questions = build_questions(tables)

    assert len(questions) >= 300
    assert {q.language for q in questions} == {"zh", "en"}
    assert {q.kind for q in questions} == {"table", "join", "value"}
    for question in questions:
        assert question.gold_tables <= by_name.keys()
        for table, column, value in question.gold_values:
            assert value in next(c for c in by_name[table].columns if c.name == column).values
            assert value in question.text

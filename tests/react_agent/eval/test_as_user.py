"""`--as USER`: the golden set asked as a user of the policy, scored under the same scope."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlglot
from sqlglot import exp

from config import Settings
from react_agent.eval.cli import main
from react_agent.eval.golden import SAMPLE_GOLDEN_SET, read_golden_set
from react_agent.eval.sessions import evaluate_in_process, evaluate_over_http
from react_agent.sample_data import SAMPLE_DB_PATH
from tests.support.golden_model import GoldenScriptModel
from tests.support.live_server import running_service

SAMPLE_POLICY = Path(__file__).resolve().parents[3] / "config" / "policy.sample.yaml"
PICKED = ("q01-zh", "q02-zh", "q06-en", "q09-zh", "q16-en", "q17-zh", "q11-en", "t01-zh")


def _tables(sql: str) -> set[str]:
    return {t.name.lower() for t in sqlglot.parse_one(sql, read="sqlite").find_all(exp.Table)}


def _policy_without_stores(tmp_path: Path) -> Path:
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        names = [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if row[0] != "stores"
        ]
    path = tmp_path / "policy.yaml"
    path.write_text(
        "users:\n  nostore: {roles: [no_stores]}\n  root: {roles: [admin]}\n"
        f"roles:\n  no_stores:\n    tables: [{', '.join(names)}]\n  admin:\n    tables: '*'\n",
        "utf-8",
    )
    return path


async def test_a_policy_that_hides_a_table_fails_exactly_the_questions_that_use_it(
    settings: Settings, tmp_path: Path
):
    questions = [q for q in read_golden_set(SAMPLE_GOLDEN_SET) if q.id in PICKED]
    using_stores = {q.id for q in questions if "stores" in _tables(q.gold_sql)}
    assert using_stores and len(using_stores) < len(questions)
    scoped = settings.model_copy(
        update={
            "memory": False,
            "policy_file": _policy_without_stores(tmp_path),
            "auth_trusted_gateway": True,  # the evaluation names the user itself
        }
    )
    model = GoldenScriptModel(questions=questions)
    report = await evaluate_in_process(questions, scoped, model=model, as_user="nostore")
    failed = {q["id"]: q["reason"] for q in report["questions"] if not q["passed"]}
    assert failed == dict.fromkeys(using_stores, "OUT_OF_SCOPE")
    assert report["meta"]["as_user"] == "nostore"
    assert all("stores" in q["detail"] for q in report["questions"] if not q["passed"])

    admin = await evaluate_in_process(questions, scoped, model=model, as_user="root")
    assert admin["passed"] == len(questions)


async def test_a_filtered_user_is_scored_against_the_gold_sql_under_their_filter(
    settings: Settings,
):
    questions = [q for q in read_golden_set(SAMPLE_GOLDEN_SET) if q.id in PICKED]
    scoped = settings.model_copy(
        update={"memory": False, "policy_file": SAMPLE_POLICY, "auth_trusted_gateway": True}
    )
    # The agent runs the gold SQL as alice (region 1 only); so does the scorer: all pass.
    report = await evaluate_in_process(
        questions, scoped, model=GoldenScriptModel(questions=questions), as_user="alice"
    )
    assert report["passed"] == len(questions), report["questions"]

    # Everyone's store count is right for the admin, wrong for alice (region 1's is less).
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        (everyone,) = connection.execute("SELECT COUNT(*) FROM stores").fetchone()
    lying = GoldenScriptModel(questions=questions, mistakes={"q01-zh": f"SELECT {everyone}"})
    as_alice = await evaluate_in_process(questions, scoped, model=lying, as_user="alice")
    as_root = await evaluate_in_process(questions, scoped, model=lying, as_user="root")
    assert {q["id"] for q in as_alice["questions"] if not q["passed"]} == {"q01-zh"}
    assert as_root["passed"] == len(questions)


def test_as_without_a_policy_file_is_refused(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POLICY_FILE", raising=False)
    status = main(["--as", "alice", "--out", str(tmp_path / "out")])
    assert status == 2
    assert "NO_POLICY" in capsys.readouterr().err


async def test_as_a_user_over_http_asks_as_that_user_and_scores_under_their_scope(
    settings: Settings, tmp_path: Path
):
    questions = [q for q in read_golden_set(SAMPLE_GOLDEN_SET) if q.id in PICKED]
    using_stores = {q.id for q in questions if "stores" in _tables(q.gold_sql)}
    scoped = settings.model_copy(
        update={
            "memory": False,
            "policy_file": _policy_without_stores(tmp_path),
            "auth_trusted_gateway": True,  # the evaluation names the user itself
        }
    )
    async with running_service(scoped, model=GoldenScriptModel(questions=questions)) as service:
        report = await evaluate_over_http(
            questions, scoped, url=service.base_url, concurrency=2, timeout=20.0, as_user="nostore"
        )
    failed = {q["id"]: q["reason"] for q in report["questions"] if not q["passed"]}
    assert failed == dict.fromkeys(using_stores, "OUT_OF_SCOPE")
    assert report["meta"]["as_user"] == "nostore"

"""The evaluation harness over the shipped golden set, with a model whose mistakes are known."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import SecretStr

from config import Settings
from react_agent.eval.cli import main
from react_agent.eval.golden import SAMPLE_GOLDEN_SET, read_golden_set
from react_agent.eval.report import write_report
from react_agent.eval.sessions import evaluate_in_process, evaluate_over_http
from tests.support.golden_model import HANG, GoldenScriptModel
from tests.support.live_server import running_service

# The wrong answers the model gives, and the reason the report must give for each.
MISTAKES = {
    "q06-en": (
        "SELECT product_name, unit_price FROM products ORDER BY unit_price DESC LIMIT 3",
        "MISSING_ROWS",
    ),
    "q11-en": (
        "SELECT store_name, opened_on FROM stores WHERE opened_on >= '2023-01-01'",
        "EXTRA_ROWS",
    ),
    "q09-zh": ("SELECT COUNT(*) FROM customers WHERE gender = '男'", "WRONG_VALUES"),
    "q17-zh": (
        "SELECT s.store_name, ROUND(SUM(o.total_amount), 2) AS revenue FROM orders o "
        "JOIN stores s ON o.store_id = s.store_id WHERE o.status = '已完成' "
        "GROUP BY s.store_name ORDER BY revenue DESC LIMIT 5 OFFSET 0",
        None,  # the same rows and order written differently: passes
    ),
    "q34-en": (
        "SELECT * FROM (SELECT (CAST(substr(order_date, 6, 2) AS INTEGER) + 2) / 3 AS quarter, "
        "ROUND(SUM(total_amount), 2) AS revenue FROM orders WHERE status = '已完成' AND "
        "order_date >= '2024-01-01' AND order_date < '2025-01-01' GROUP BY quarter) "
        "ORDER BY quarter DESC",
        "WRONG_VALUES",  # the right rows in the wrong order, where the gold orders
    ),
    "q04-zh": ("DELETE FROM orders", "REFUSED"),
    "q12-zh": ("SELECT no_such_column FROM products", "SQL_ERROR"),
    "q05-en": ({"answer": "There are four levels."}, "NO_SQL"),
    "q01-en": (
        {"sql": "SELECT COUNT(*) AS n FROM stores", "answer": "A few stores."},
        "FACT_MISSING",
    ),
    "t02-zh": (
        "SELECT COUNT(*) FROM orders WHERE order_date >= '2024-01-01' "
        "AND order_date < '2025-01-01'",
        "WRONG_VALUES",
    ),
    "q40-zh": (HANG, "TIMEOUT"),
}


async def test_the_report_names_exactly_the_wrong_answers_with_their_reasons(
    settings: Settings, tmp_path: Path
):
    questions = read_golden_set(SAMPLE_GOLDEN_SET)
    model = GoldenScriptModel(
        questions=questions, mistakes={key: sql for key, (sql, _) in MISTAKES.items()}
    )
    report = await evaluate_in_process(
        questions,
        settings.model_copy(update={"memory": False}),
        model=model,
        concurrency=8,
        timeout=8.0,
    )
    failed = {q["id"]: q["reason"] for q in report["questions"] if not q["passed"]}
    expected = {key: reason for key, (_, reason) in MISTAKES.items() if reason}
    assert failed == expected
    assert report["total"] == len(questions) >= 80
    assert report["accuracy"] == round((len(questions) - len(expected)) / len(questions), 4)
    by_id = {q["id"]: q for q in report["questions"]}
    # One model call to run the SQL, one to answer; each reports 120 prompt tokens.
    assert by_id["q02-zh"]["model_calls"] == 2 and by_id["q02-zh"]["prompt_tokens"] == 240
    assert by_id["q02-zh"]["sql_count"] == 1 and by_id["q02-zh"]["sql"]
    # A follow-up counts both turns' calls.
    assert by_id["t01-en"]["model_calls"] == 4
    assert report["reasons"]["WRONG_VALUES"] == 3

    paths = write_report(tmp_path / "run", report)
    written = json.loads(paths[0].read_text("utf-8"))
    assert written["accuracy"] == report["accuracy"]
    assert set(written["questions"][0]) >= {
        "id",
        "passed",
        "reason",
        "sql",
        "model_calls",
        "prompt_tokens",
        "completion_tokens",
        "seconds",
        "sql_count",
    }
    markdown = paths[1].read_text("utf-8")
    assert all(f"| {key} | {reason} |" in markdown for key, reason in expected.items())
    assert paths[2].read_text("utf-8").startswith("<svg")


def test_compare_lists_regressions_first_and_fails_on_them(tmp_path: Path, capsys):
    def report(passes: dict[str, bool]) -> dict:
        questions = [
            {"id": key, "passed": ok, "reason": "PASSED" if ok else "WRONG_VALUES", "detail": ""}
            for key, ok in passes.items()
        ]
        return {"accuracy": sum(passes.values()) / len(passes), "questions": questions}

    (tmp_path / "a.json").write_text(json.dumps(report({"q1": True, "q2": False, "q3": True})))
    (tmp_path / "b.json").write_text(json.dumps(report({"q1": False, "q2": True, "q3": True})))
    status = main(["--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    output = capsys.readouterr().out
    assert status == 1
    assert output.index("## Regressions (1)") < output.index("## Fixes (1)")
    assert "- q1: PASSED → WRONG_VALUES" in output
    assert main(["--compare", str(tmp_path / "b.json"), str(tmp_path / "b.json")]) == 0


async def test_a_running_service_is_evaluated_over_http(settings: Settings, tmp_path: Path):
    questions = [
        q
        for q in read_golden_set(SAMPLE_GOLDEN_SET)
        if q.id
        in {
            "q02-zh",
            "q16-en",
            "q06-en",
            "t01-zh",
        }
    ]
    model = GoldenScriptModel(questions=questions, mistakes={"q06-en": MISTAKES["q06-en"][0]})
    guarded = settings.model_copy(update={"api_keys": SecretStr("eval-key")})
    async with running_service(guarded, model=model) as service:
        report = await evaluate_over_http(
            questions,
            settings,
            url=service.base_url,
            api_key="eval-key",
            concurrency=2,
            timeout=20.0,
        )
        refused = await evaluate_over_http(
            questions[:1], settings, url=service.base_url, api_key="wrong", timeout=20.0
        )
    assert refused["questions"][0]["reason"] == "AGENT_ERROR"
    assert refused["questions"][0]["detail"].startswith("UNAUTHORIZED")
    assert report["meta"]["agent"] == service.base_url
    assert {q["id"]: q["reason"] for q in report["questions"]} == {
        "q02-zh": "PASSED",
        "q16-en": "PASSED",
        "q06-en": "MISSING_ROWS",
        "t01-zh": "PASSED",
    }
    assert report["accuracy"] == 0.75
    by_id = {q["id"]: q for q in report["questions"]}
    # The first turn (no standalone question of that text here) is answered without SQL:
    # one call; the scored turn runs its SQL and answers: two more.
    assert by_id["t01-zh"]["model_calls"] == 3 and by_id["t01-zh"]["prompt_tokens"] == 360


async def test_an_unreachable_service_fails_every_question_as_an_agent_error(
    settings: Settings,
):
    questions = read_golden_set(SAMPLE_GOLDEN_SET)[:2]
    report = await evaluate_over_http(
        questions, settings, url="http://127.0.0.1:9", concurrency=2, timeout=5.0
    )
    assert [q["reason"] for q in report["questions"]] == ["AGENT_ERROR", "AGENT_ERROR"]
    assert "HTTP_ERROR" in report["questions"][0]["detail"]


async def test_a_repeated_run_reports_each_run_and_lists_the_unstable_question_first(
    settings: Settings, tmp_path: Path, capsys
):
    questions = [
        q for q in read_golden_set(SAMPLE_GOLDEN_SET) if q.id in {"q02-zh", "q06-en", "q16-en"}
    ]
    model = GoldenScriptModel(
        questions=questions,
        flaky={"q06-en": MISTAKES["q06-en"][0]},
        mistakes={"q16-en": "SELECT 1"},
    )
    report = await evaluate_in_process(
        questions,
        settings.model_copy(update={"memory": False}),
        model=model,
        concurrency=1,
        timeout=8.0,
        repeat=4,
    )
    by_id = {q["id"]: q for q in report["questions"]}
    assert report["repeat"] == 4
    # Asked 1st, 3rd: wrong; 2nd, 4th: right (one at a time, so in that order).
    assert by_id["q06-en"]["runs"] == [False, True, False, True]
    assert by_id["q06-en"]["passed"] is False and by_id["q06-en"]["reason"] == "MISSING_ROWS"
    assert by_id["q02-zh"]["runs"] == [True] * 4 and by_id["q16-en"]["runs"] == [False] * 4
    assert report["accuracy"] == round((1 + 0.5 + 0) / 3, 4)
    assert report["pass_all"] == round(1 / 3, 4) and report["pass_any"] == round(2 / 3, 4)
    assert report["unstable"] == 1 and report["passed"] == 1
    assert by_id["q02-zh"]["model_calls"] == 2  # a mean over the runs, not a sum

    paths = write_report(tmp_path / "rep", report)
    markdown = paths[1].read_text("utf-8")
    assert markdown.index("## Unstable (1)") < markdown.index("## Failures (1)")
    assert "| q06-en | ✗✓✗✓ | MISSING_ROWS |" in markdown
    assert "| q16-en |" in markdown.split("## Failures")[1]

    once = await evaluate_in_process(
        [q for q in questions if q.id != "q06-en"],
        settings.model_copy(update={"memory": False}),
        model=GoldenScriptModel(questions=questions),
        timeout=8.0,
    )
    assert once["repeat"] == 1 and once["unstable"] == 0
    assert [q["runs"] for q in once["questions"]] == [[True], [True]]
    write_report(tmp_path / "once", once)
    assert main(["--compare", str(tmp_path / "once"), str(tmp_path / "once")]) == 0
    capsys.readouterr()
    stable = {**once, "questions": [*once["questions"], {**by_id["q06-en"], "runs": [True]}]}
    stable["questions"][-1]["passed"] = True
    (tmp_path / "stable.json").write_text(json.dumps(stable))
    status = main(["--compare", str(tmp_path / "stable.json"), str(tmp_path / "rep")])
    output = capsys.readouterr().out
    assert status == 1
    assert "## Became unstable (1)" in output and "- q06-en: ✓ → ✗✓✗✓ MISSING_ROWS" in output

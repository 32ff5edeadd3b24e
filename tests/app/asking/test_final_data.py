from app.asking.replies.final_data import build_final_data
from react_agent.runs.events.events import RunResult

RECORDS = {
    "columns": ["region", "sales"],
    "rows": [{"region": r, "sales": s} for r, s in (("华东", 30.5), ("华北", 20), ("华南", 12))],
    "total_row_count": 3,
    "is_limited": False,
}


def _result(question: str) -> RunResult:
    return RunResult(
        thread_id="u:1",
        answer="ok",
        execution_path=[],
        tools_used=["run_sql"],
        sql="SELECT 1",
        records=RECORDS,
        sql_execution_count=1,
        total_messages=4,
        conversation_rounds=1,
        question=question,
    )


def test_a_question_about_shares_gets_a_pie_and_others_a_bar():
    pie = build_final_data(_result("各地区销售额占比是多少"), "u")["chart"]
    bar = build_final_data(_result("各地区销售额是多少"), "u")["chart"]
    assert pie["series"][0]["type"] == "pie"
    assert bar["series"][0]["type"] == "bar"

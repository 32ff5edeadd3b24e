"""The answer check: figures in zh and en formats matched against the rows the run read."""

from __future__ import annotations

import pytest

from react_agent.results.answer_check import check_answer, unsupported_note

REGIONS = {
    "columns": ["region_name", "revenue", "refund_rate"],
    "rows": [
        {"region_name": "华东", "revenue": 781933.58, "refund_rate": 0.0436},
        {"region_name": "华南", "revenue": 500000.0, "refund_rate": 0.0521},
        {"region_name": "东北", "revenue": 228141.53, "refund_rate": 0.0663},
    ],
    "total_row_count": 3,
    "is_limited": False,
}


def unsupported(answer: str, context: str = "") -> list[str]:
    return [entry["text"] for entry in check_answer(answer, [REGIONS], context)["unsupported"]]


@pytest.mark.parametrize(
    "answer",
    [
        "华东的销售额最高，为781,933.58元。",
        "华东约78.2万元，华南50万元。",  # 万, rounded
        "华东销售额 0.08亿元",  # 亿
        "East China leads with 781,934 CNY.",  # a correct rounded figure
        "East China: 781.9 thousand? No: 781,933.6 yuan.",
        "华东的退款率为4.36%，东北为6.6%。",  # a ratio cell as a percentage
        "三个大区合计1,510,075.11元。",  # the column's total
        "华东占总额的51.8%。",  # a share of the column total
        "华东比华南多281,933.58元，高出56.39%。",  # difference and growth of two cells
        "共3个大区。",  # the row count
    ],
)
def test_a_supported_figure_passes(answer: str):
    assert unsupported(answer) == []


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("三个大区合计1,600,000.00元。", "1,600,000.00"),  # a wrong total
        ("华东的销售额为79.5万元。", "79.5万"),
        ("East China's refund rate is 5.1%.", "5.1%"),
        ("华东占总额的60%。", "60%"),
    ],
)
def test_an_unsupported_figure_is_named(answer: str, wrong: str):
    assert unsupported(answer) == [wrong]


def test_numbers_of_the_question_list_markers_and_names_are_not_claims():
    answer = "2024年前5名：\n1. 华东 781,933.58\n2. 华南 500,000\n3. 美的变频空调1.5匹"
    products = {"columns": ["p"], "rows": [{"p": "美的变频空调1.5匹"}], "total_row_count": 1}
    check = check_answer(answer, [REGIONS, products], "2024年销售额前5的大区")
    assert check["unsupported"] == []
    assert check["checked"] == check["supported"] >= 5


def test_dates_must_be_in_a_cell_or_the_question():
    months = {
        "columns": ["month", "n"],
        "rows": [{"month": "2024-10", "n": 9}],
        "total_row_count": 1,
    }
    assert check_answer("2024年10月最多，9单", [months])["unsupported"] == []
    check = check_answer("2024年11月最多", [months])
    assert check["unsupported"] == [{"text": "2024年11月", "reason": "DATE_NOT_IN_RESULTS"}]


def test_an_answer_without_figures_checks_nothing():
    assert check_answer("没有找到数据。", []) == {"checked": 0, "supported": 0, "unsupported": []}


def test_the_note_names_unsupported_figures_only():
    assert unsupported_note({"checked": 1, "supported": 1, "unsupported": []}) is None
    note = unsupported_note(
        {
            "checked": 1,
            "supported": 0,
            "unsupported": [{"text": "79.5万", "reason": "NUMBER_NOT_IN_RESULTS"}],
        }
    )
    assert note is not None and "79.5万" in note


def test_odd_results_do_not_break_the_check():
    odd = {
        "columns": ["a", "b", "c"],
        "rows": [{"a": 1, "b": "x"}, {"a": "2", "b": None, "c": True}, {"a": None, "c": 5}],
        "total_row_count": 3,
    }
    check = check_answer("a is 1, c is 5, b is x, 99 in all", [odd, {"rows": [], "columns": []}])
    assert [entry["text"] for entry in check["unsupported"]] == ["99"]


def test_a_numeric_sent_as_text_is_a_figure():
    # PostgreSQL's AVG(numeric) has more digits than a float holds: it arrives as text.
    averages = {
        "columns": ["level", "avg"],
        "total_row_count": 2,
        "rows": [
            {"level": "金卡", "avg": "750.1123456789012345678"},
            {"level": "普通", "avg": "734.1598765432109876543"},
        ],
    }
    assert check_answer("金卡平均750.11元，普通734.16元", [averages])["unsupported"] == []


def test_a_masked_values_token_is_no_figure():
    # The model sees sensitive values as tokens (access/sensitive/masking) and may repeat them.
    salaries = {
        "columns": ["name", "salary"],
        "total_row_count": 1,
        "rows": [
            {"name": "张三", "salary": 52000},
        ],
    }
    check = check_answer("张三的工资是‹salary#3486›，共1人。", [salaries])
    assert check["unsupported"] == [] and check["checked"] == 2  # 张三 and the row count

"""The execution comparison's edge cases: duplicates, floats, NULL, ordering, column aliases."""

from __future__ import annotations

from decimal import Decimal

import pytest

from react_agent.eval.scoring import compare_results, facts_missing, outer_query_orders


def reason(gold, predicted, ordered=False):
    return compare_results(gold, predicted, ordered=ordered).reason


def test_rows_are_a_multiset_so_a_lost_duplicate_is_missing():
    assert reason([(1,), (1,), (2,)], [(1,), (2,)]) == "MISSING_ROWS"
    assert reason([(1,), (2,)], [(1,), (1,), (2,)]) == "EXTRA_ROWS"
    assert reason([(1,), (1,), (2,)], [(2,), (1,), (1,)]) == "PASSED"


def test_a_wrong_value_is_wrong_values():
    assert reason([("a", 1), ("b", 2)], [("a", 1), ("b", 3)]) == "WRONG_VALUES"


def test_numbers_agree_to_six_significant_digits_across_types():
    assert reason([(0.3, 3)], [(0.1 + 0.2, 3.0)]) == "PASSED"
    assert reason([(2808192.95,)], [(Decimal("2808192.95"),)]) == "PASSED"
    assert reason([(2808192.95,)], [("2808192.95",)]) == "PASSED"  # a Decimal sent as text
    assert reason([(1234.5,)], [(1234.6,)]) == "WRONG_VALUES"
    assert reason([(0.1415,)], [(0.14149999999,)]) == "PASSED"


def test_numeric_looking_text_stays_text():
    assert reason([("2024-01",)], [("2024-01",)]) == "PASSED"
    assert reason([("007",)], [(7,)]) == "WRONG_VALUES"


def test_null_equals_null_and_nothing_else():
    assert reason([(None, 1)], [(None, 1)]) == "PASSED"
    assert reason([(None,)], [(0,)]) == "WRONG_VALUES"
    assert reason([(None,)], [("",)]) == "WRONG_VALUES"


def test_order_counts_only_when_the_gold_orders():
    gold = [("a", 3), ("b", 2), ("c", 1)]
    flipped = list(reversed(gold))
    assert reason(gold, flipped, ordered=False) == "PASSED"
    verdict = compare_results(gold, flipped, ordered=True)
    assert verdict.reason == "WRONG_VALUES" and "order" in verdict.detail
    assert reason(gold, gold, ordered=True) == "PASSED"


def test_column_names_and_order_are_ignored():
    # SELECT region, revenue  vs  SELECT revenue AS r, region AS name
    assert reason([("华东", 10.5), ("华南", 7.0)], [(7.0, "华南"), (10.5, "华东")]) == "PASSED"
    # Two columns with the same values: any permutation that matches is enough.
    assert reason([(1, 1, "x"), (2, 2, "y")], [("y", 2, 2), ("x", 1, 1)]) == "PASSED"


def test_a_different_column_count_is_wrong_values():
    verdict = compare_results([("a", 1)], [("a", 1, 99)], ordered=False)
    assert verdict.reason == "WRONG_VALUES" and "3 column(s)" in verdict.detail


def test_empty_results():
    assert reason([], []) == "PASSED"
    assert reason([(1,)], []) == "MISSING_ROWS"
    assert reason([], [(1,)]) == "EXTRA_ROWS"


def test_a_near_miss_with_permuted_columns_is_classified_in_its_best_alignment():
    gold = [("a", 1), ("b", 2), ("c", 3)]
    assert reason(gold, [(1, "a"), (2, "b")]) == "MISSING_ROWS"


@pytest.mark.parametrize(
    ("sql", "ordered"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a) LIMIT 3", False),
        ("SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t", False),
        ("SELECT a FROM t", False),
    ],
)
def test_only_the_outer_query_order_by_counts(sql: str, ordered: bool):
    assert outer_query_orders(sql) is ordered


def test_facts_are_found_despite_case_spaces_and_thousands_commas():
    assert facts_missing("Revenue was 2,808,192.95 CNY in Total", ["2808192.95", "total"]) == []
    assert facts_missing("共 32 家门店", ["32家"]) == []
    assert facts_missing("共 31 家门店", ["32"]) == ["32"]

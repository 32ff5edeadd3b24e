"""Alternated rounds: the order of each round, the median level and ratios round by round."""

from __future__ import annotations

from typing import Any

import pytest

from bench.measure.rounds import (
    cpu_per_question,
    median_level,
    round_order,
    side_by_side,
    throughput,
)


def test_odd_rounds_keep_the_order_and_even_rounds_reverse_it() -> None:
    orders = [round_order(["a", "b", "c"], r) for r in (1, 2, 3, 4)]

    assert orders == [["a", "b", "c"], ["c", "b", "a"], ["a", "b", "c"], ["c", "b", "a"]]


def test_rounds_count_from_one() -> None:
    with pytest.raises(ValueError):
        round_order(["a"], 0)


def _round(round_no: int, qps: float, cpu: float, **extra: Any) -> dict[str, Any]:
    return {
        "concurrency": 100,
        "questions": 200,
        "completed": 200,
        "all_completed": True,
        "disturbed": False,
        "errors": {},
        "throughput_qps": qps,
        "server_cpu_ms_per_question": cpu,
        "db_cpu_ms_per_question": None,
        "round": round_no,
        "position": 1,
        **extra,
    }


def test_the_median_level_takes_each_figure_own_median_and_adds_up_errors() -> None:
    rounds = [
        _round(1, 20.0, 37.0, errors={"HTTP 503": 1}),
        _round(2, 16.0, 41.0, disturbed=True, completed=198, all_completed=False),
        _round(3, 18.0, 35.0, errors={"HTTP 503": 2, "TIMEOUT": 1}),
    ]

    level = median_level(rounds)

    assert (level["throughput_qps"], level["server_cpu_ms_per_question"]) == (18.0, 37.0)
    assert (level["completed"], level["questions"], level["concurrency"]) == (200, 200, 100)
    assert level["errors"] == {"HTTP 503": 3, "TIMEOUT": 1}
    assert (level["disturbed"], level["all_completed"]) == (True, False)
    assert level["rounds"] == 3
    assert "round" not in level and "position" not in level
    assert level["db_cpu_ms_per_question"] is None


def test_of_two_rounds_counts_stay_whole_and_figures_take_the_mean_of_the_middle() -> None:
    level = median_level([_round(1, 20.0, 30.0, completed=199), _round(2, 16.0, 40.0)])

    assert level["completed"] == 199
    assert level["throughput_qps"] == 18.0


def test_cpu_per_question_adds_the_postgresql_backends() -> None:
    assert cpu_per_question(_round(1, 1.0, 35.6, db_cpu_ms_per_question=5.3)) == 40.9
    assert cpu_per_question(_round(1, 1.0, 37.0)) == 37.0
    assert cpu_per_question({"throughput_qps": 3.0}) is None


def _results(mine: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "mine": {"levels": {"100": median_level(mine)}, "rounds": {"100": mine}},
        "theirs": {"levels": {"100": median_level(theirs)}, "rounds": {"100": theirs}},
    }


def test_ratios_are_taken_round_by_round_and_their_median_kept() -> None:
    # Round 2 was slow for both: the per-round ratios see through it, the medians would not.
    mine = [_round(1, 21.0, 30.0), _round(2, 10.0, 30.0), _round(3, 18.0, 30.0)]
    theirs = [_round(1, 20.0, 30.0), _round(2, 8.0, 30.0), _round(3, 20.0, 30.0)]

    compared = side_by_side(_results(mine, theirs), "mine", "theirs", 100, throughput)

    assert compared is not None
    assert compared.per_round == [1.05, 1.25, 0.9]
    assert compared.ratio == 1.05
    assert (compared.mine, compared.theirs) == (18.0, 20.0)


def test_rounds_pair_by_their_number_and_a_round_missing_on_one_side_is_left_out() -> None:
    mine = [_round(3, 30.0, 1.0), _round(1, 10.0, 1.0)]
    theirs = [_round(1, 20.0, 1.0), _round(2, 20.0, 1.0), _round(3, 20.0, 1.0)]

    compared = side_by_side(_results(mine, theirs), "mine", "theirs", 100, throughput)

    assert compared is not None
    assert compared.per_round == [1.5, 0.5]


def test_a_run_of_one_round_compares_its_levels() -> None:
    results = {
        "mine": {"levels": {"100": _round(1, 15.0, 40.0, db_cpu_ms_per_question=5.0)}},
        "theirs": {"levels": {"100": _round(1, 20.0, 36.0)}},
    }

    compared = side_by_side(results, "mine", "theirs", 100, cpu_per_question)

    assert compared is not None
    assert (compared.ratio, compared.per_round) == (1.25, [1.25])
    assert side_by_side(results, "mine", "theirs", 500, throughput) is None
    assert side_by_side(results, "mine", "nobody", 100, throughput) is None

"""results.md's #35 targets and, with --rounds N, each round's figures and per-round ratios."""

from __future__ import annotations

from typing import Any

from bench.measure.rounds import median_level
from bench.report.markdown import markdown
from bench.report.ratios import compute_ratios
from tests.bench.test_report import _level, scale_results


def test_35_targets_compare_cpu_and_throughput_in_a_run_of_one_round() -> None:
    results = scale_results()
    results["service_pg_workers_1"]["levels"]["100"]["db_cpu_ms_per_question"] = 16.8
    lines = markdown(results).splitlines()

    assert (
        "| #35: ours on PostgreSQL, 1 worker, c=100: CPU per question (+ PostgreSQL) / "
        "our service (stream) | 1.20× (100.8 / 84.0 ms) | ≤ 1.30× | met | – |"
    ) in lines
    assert (
        "| #35: ours on PostgreSQL, 1 worker, c=100: q/s / our service (stream) "
        "| 0.71× (15.0 / 21.0 q/s) | ≥ 0.80× | **not met** | – |"
    ) in lines
    assert (
        "| #35: ours on PostgreSQL, 2 workers, c=100: q/s / langgraph dev "
        "| 1.69× (27.0 / 16.0 q/s) | ≥ 1.30× | met | – |"
    ) in lines
    assert (
        "| #35: our service (stream) (default RUNS_MAX_ACTIVE), c=100: CPU per question / "
        "in-process graph | 1.00× (84.0 / 84.0 ms) | ≤ 1.15× | met | – |"
    ) in lines


def _rounds(side_qps: list[float], order_positions: list[int], **extra: Any) -> list[dict]:
    return [
        _level(100, 200, 200, throughput_qps=qps, round=r, position=p, **extra)
        for r, (qps, p) in enumerate(zip(side_qps, order_positions, strict=True), 1)
    ]


def rounds_results() -> dict[str, Any]:
    """Three sides at c=100 in three alternated rounds (ABC, CBA, ABC)."""
    sides = {
        "in_process": _rounds([30.0, 24.0, 28.0], [1, 3, 1], server_cpu_ms_per_question=30.0),
        "service_stream": _rounds([20.0, 16.0, 21.0], [2, 2, 2]),
        "service_pg_workers_1": _rounds(
            [16.0, 14.0, 15.0],
            [3, 1, 3],
            server_cpu_ms_per_question=35.0,
            db_cpu_ms_per_question=5.0,
        ),
    }
    results: dict[str, Any] = {
        "meta": {
            "date": "2026-01-01T00:00:00+00:00",
            "rounds": 3,
            "only_sides": True,
            "sides": list(sides),
            "round_orders": {
                "100": [list(sides), list(reversed(sides)), list(sides)],
            },
        },
    }
    for side, rounds in sides.items():
        results[side] = {"levels": {"100": median_level(rounds)}, "rounds": {"100": rounds}}
    results["ratios"] = compute_ratios(results)
    return results


def test_with_rounds_a_target_is_the_median_of_each_round_ratio() -> None:
    lines = markdown(rounds_results()).splitlines()

    # Rounds: 16/20, 14/16, 15/21 = 0.80, 0.875, 0.714; the median of the q/s would say 0.75.
    assert (
        "| #35: ours on PostgreSQL, 1 worker, c=100: q/s / our service (stream) "
        "| 0.80× (median of 3 alternated rounds: 0.80, 0.88, 0.71; medians 15.0 / 20.0 q/s) "
        "| ≥ 0.80× | met | – |"
    ) in lines
    assert (
        "| #35: our service (stream) (default RUNS_MAX_ACTIVE), c=100: CPU per question / "
        "in-process graph | 2.80× (median of 3 alternated rounds: 2.80, 2.80, 2.80; "
        "medians 84.0 / 30.0 ms) | ≤ 1.15× | **not met** | – |"
    ) in lines


def test_with_rounds_each_round_has_its_rows_in_the_order_it_ran() -> None:
    lines = markdown(rounds_results()).splitlines()
    rows = [line for line in lines if line.startswith("| 100 | 2 |")]

    assert "### Alternated rounds (3 per level)" in lines
    assert rows == [
        "| 100 | 2 | 1 | ours on PostgreSQL, 1 worker | 200/200 | 14.0 | 35.0 + 5.0 = 40.0 "
        "| 10 / 21 | 343 / 453 | 3 |",
        "| 100 | 2 | 2 | our service (stream) | 200/200 | 16.0 | 84.0 | 10 / 21 | 343 / 453 | 3 |",
        "| 100 | 2 | 3 | in-process graph (astream) | 200/200 | 24.0 | 30.0 | 10 / 21 "
        "| 343 / 453 | 3 |",
    ]


def test_a_run_of_named_sides_leaves_out_the_sections_it_did_not_measure() -> None:
    text = markdown(rounds_results())

    assert "Only the sides in_process, service_stream, service_pg_workers_1 (--sides)." in text
    assert "Each level 3 times, the sides alternated (--rounds 3)" in text
    assert "## 1. Overhead" not in text
    assert "## 4. Checkpointer" not in text
    assert "| in-process graph (astream) | 100 | 200/200 | 28.0 |" in text


def test_with_rounds_ours_against_a_peer_is_the_median_of_each_round_ratio() -> None:
    lines = markdown(rounds_results()).splitlines()

    # Rounds: 20/30, 16/24, 21/28 = 0.667, 0.667, 0.75; the medians' 20/28 would say 0.71.
    assert (
        "| in-process graph (astream) | 100 | 0.67 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 "
        "| 2.80 |"
    ) in lines

"""The feature benchmarks' alternated rounds: who runs when, and the medians they report."""

from __future__ import annotations

from dataclasses import dataclass

from bench.measure.runner_rounds import alternated_rounds, median_figures


@dataclass
class Answer:
    ok: bool


async def test_sides_are_warmed_then_alternated_round_by_round():
    calls: list[str] = []

    def side(name: str, ok: bool = True):
        async def ask(index: int, worker: int) -> Answer:
            calls.append(name)
            return Answer(ok)

        return ask

    measured = await alternated_rounds(
        {"a": side("a"), "b": side("b", ok=False)}, rounds=3, concurrency=2, questions=3
    )
    # Warm-up: one round of `concurrency` each; then ab, ba, ab of `questions` each.
    assert calls == ["a"] * 2 + ["b"] * 2 + ["a"] * 3 + ["b"] * 6 + ["a"] * 6 + ["b"] * 3
    assert [len(measured[name]) for name in ("a", "b")] == [3, 3]
    assert all(r["failed"] == 0 for r in measured["a"])
    assert all(r["failed"] == 3 for r in measured["b"])


def test_medians_are_per_side_and_failures_are_summed():
    measured = {
        "on": [
            {"qps": 10.0, "cpu_ms_per_question": 30.04, "failed": 0},
            {"qps": 30.0, "cpu_ms_per_question": 10.0, "failed": 1},
            {"qps": 20.0, "cpu_ms_per_question": 20.0, "failed": 2},
        ],
        "off": [{"qps": 5.0, "cpu_ms_per_question": 7.25, "failed": 0}],
    }
    assert median_figures(measured) == {
        "on": {"qps": 20.0, "cpu_ms_per_question": 20.0, "failed": 3},
        "off": {"qps": 5.0, "cpu_ms_per_question": 7.2, "failed": 0},
    }

"""Alternated rounds (--rounds): each round's order of the sides, medians, ratios round by round.

One pass over the sides on a shared machine moves a ratio by ±0.1; running each level
N times, the order reversed every other round, and taking the median of the ratios of
the same round (sides measured minutes apart, not a whole run apart) steadies it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Figure = Callable[[dict[str, Any]], float | None]
"""One figure of a measured level (q/s, CPU per question, ...), None if it lacks it."""

ANY_TRUE = frozenset({"disturbed"})
"""Flags of a level that hold for the median when they hold in any round (others: in all)."""
PER_ROUND = frozenset({"round", "position"})
"""Keys of a round's level that say which round it was: no median of them."""


def round_order(sides: Sequence[str], round_no: int) -> list[str]:
    """Return the order of `sides` in round `round_no` (from 1): as given, reversed in even rounds.

    ABC, CBA, ABC: every pair of sides is measured in both orders, so that a drift of the
    machine (a neighbour's load, a growing database) does not always favour the same one.
    """
    if round_no < 1:
        raise ValueError(f"rounds count from 1, not {round_no}")
    return list(sides) if round_no % 2 else list(reversed(sides))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def median_level(rounds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Return one level's figures over its rounds: each number's median, flags, summed errors.

    Each number is its own median (the median q/s and the median CPU per question may
    come from different rounds; of an even number of rounds, the lower of the middle two
    for whole numbers such as counts); `errors` are added up, `disturbed` holds if it held in
    any round and other flags (`all_completed`) if they held in every round.
    """
    if not rounds:
        raise ValueError("no round to take the median of")
    keys = [k for k in dict.fromkeys(k for level in rounds for k in level) if k not in PER_ROUND]
    merged: dict[str, Any] = {}
    for key in keys:
        values = [level.get(key) for level in rounds]
        present = [v for v in values if v is not None]
        if key == "errors":
            total: Counter[str] = Counter()
            for errors in present:
                total.update(errors)
            merged[key] = dict(total)
        elif present and all(isinstance(v, bool) for v in present):
            merged[key] = any(present) if key in ANY_TRUE else all(present)
        elif present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            merged[key] = statistics.median_low(present)  # counts stay whole numbers
        elif present and all(_is_number(v) for v in present):
            merged[key] = round(statistics.median(present), 3)
        else:
            merged[key] = present[0] if present else None
    merged["rounds"] = len(rounds)
    return merged


def throughput(level: dict[str, Any]) -> float | None:
    """Completed questions per second of the level."""
    return level.get("throughput_qps")


def cpu_per_question(level: dict[str, Any]) -> float | None:
    """CPU ms per question of the server and of its PostgreSQL backends, if it has any."""
    server = level.get("server_cpu_ms_per_question")
    if server is None:
        return None
    return round(server + (level.get("db_cpu_ms_per_question") or 0.0), 1)


@dataclass(frozen=True)
class SideBySide:
    """A figure of one side over another's, taken round by round."""

    ratio: float
    """The median of the per-round ratios (the one ratio with a single round)."""
    per_round: list[float]
    mine: float
    """The median of the first side's figure over its rounds."""
    theirs: float


def side_rounds(results: dict[str, Any], side: str, concurrency: int) -> list[dict[str, Any]]:
    """Return the rounds of `side` at `concurrency`: its `rounds`, or its one level."""
    entry = results.get(side) or {}
    rounds = (entry.get("rounds") or {}).get(str(concurrency))
    if rounds:
        return list(rounds)
    level = (entry.get("levels") or {}).get(str(concurrency))
    return [{**level, "round": 1}] if level else []


def side_by_side(
    results: dict[str, Any], mine: str, theirs: str, concurrency: int, figure: Figure
) -> SideBySide | None:
    """Return `figure` of side `mine` over side `theirs`, round by round, and its median.

    Rounds are paired by their number; a round one side lacks (or whose figure is
    missing or zero below) is left out. None when no round pairs up.
    """
    theirs_by_round = {
        level.get("round", i + 1): level
        for i, level in enumerate(side_rounds(results, theirs, concurrency))
    }
    pairs = []
    for i, level in enumerate(side_rounds(results, mine, concurrency)):
        other = theirs_by_round.get(level.get("round", i + 1))
        a, b = figure(level), figure(other) if other else None
        if a is not None and b:
            pairs.append((a, b))
    if not pairs:
        return None
    per_round = [round(a / b, 3) for a, b in pairs]
    return SideBySide(
        ratio=round(statistics.median(per_round), 3),
        per_round=per_round,
        mine=statistics.median(a for a, _ in pairs),
        theirs=statistics.median(b for _, b in pairs),
    )

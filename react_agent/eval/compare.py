"""Comparing two evaluation reports: what broke first, then what was fixed."""

from __future__ import annotations

from typing import Any

from react_agent.eval.repeat import is_unstable, runs_text


def compare_reports(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Return the regressions (passed before, fail after), fixes and the rest, by question id.

    `became_unstable` lists the questions whose runs agreed before (all passed or all failed,
    a single run included) and disagree after.
    """
    old = {q["id"]: q for q in before["questions"]}
    new = {q["id"]: q for q in after["questions"]}
    common = [i for i in new if i in old]

    def line(question_id: str) -> dict[str, Any]:
        return {
            "id": question_id,
            "before": old[question_id]["reason"],
            "after": new[question_id]["reason"],
            "detail": new[question_id].get("detail", ""),
            "runs_before": runs_text(old[question_id]),
            "runs_after": runs_text(new[question_id]),
        }

    return {
        "accuracy_before": before["accuracy"],
        "accuracy_after": after["accuracy"],
        "regressions": [line(i) for i in common if old[i]["passed"] and not new[i]["passed"]],
        "fixes": [line(i) for i in common if not old[i]["passed"] and new[i]["passed"]],
        "still_failing": [line(i) for i in common if not old[i]["passed"] and not new[i]["passed"]],
        "became_unstable": [
            line(i) for i in common if not is_unstable(old[i]) and is_unstable(new[i])
        ],
        "only_before": sorted(set(old) - set(new)),
        "only_after": sorted(set(new) - set(old)),
    }


def render_comparison(comparison: dict[str, Any]) -> str:
    """Return the comparison as Markdown, regressions first."""
    lines = [
        f"# Comparison: accuracy {comparison['accuracy_before']:.1%} → "
        f"{comparison['accuracy_after']:.1%}",
        "",
    ]
    for title, key in (
        ("Regressions", "regressions"),
        ("Fixes", "fixes"),
        ("Became unstable", "became_unstable"),
        ("Still failing", "still_failing"),
    ):
        entries = comparison[key]
        lines.append(f"## {title} ({len(entries)})")
        lines += [_entry(e, key) for e in entries] or ["None."]
        lines.append("")
    for title, key in (("Only in the first", "only_before"), ("Only in the second", "only_after")):
        if comparison[key]:
            lines.append(f"{title}: {', '.join(comparison[key])}")
    return "\n".join(lines).rstrip() + "\n"


def _entry(entry: dict[str, Any], key: str) -> str:
    if key == "became_unstable":
        return f"- {entry['id']}: {entry['runs_before']} → {entry['runs_after']} {entry['after']}"
    return f"- {entry['id']}: {entry['before']} → {entry['after']} {entry['detail']}".rstrip()

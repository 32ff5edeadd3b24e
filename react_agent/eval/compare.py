"""Comparing two evaluation reports: what broke first, then what was fixed."""

from __future__ import annotations

from typing import Any


def compare_reports(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Return the regressions (passed before, fail after), fixes and the rest, by question id."""
    old = {q["id"]: q for q in before["questions"]}
    new = {q["id"]: q for q in after["questions"]}
    common = [i for i in new if i in old]

    def line(question_id: str) -> dict[str, Any]:
        return {
            "id": question_id,
            "before": old[question_id]["reason"],
            "after": new[question_id]["reason"],
            "detail": new[question_id].get("detail", ""),
        }

    return {
        "accuracy_before": before["accuracy"],
        "accuracy_after": after["accuracy"],
        "regressions": [line(i) for i in common if old[i]["passed"] and not new[i]["passed"]],
        "fixes": [line(i) for i in common if not old[i]["passed"] and new[i]["passed"]],
        "still_failing": [line(i) for i in common if not old[i]["passed"] and not new[i]["passed"]],
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
        ("Still failing", "still_failing"),
    ):
        entries = comparison[key]
        lines.append(f"## {title} ({len(entries)})")
        lines += [
            f"- {e['id']}: {e['before']} → {e['after']} {e['detail']}".rstrip() for e in entries
        ] or ["None."]
        lines.append("")
    for title, key in (("Only in the first", "only_before"), ("Only in the second", "only_after")):
        if comparison[key]:
            lines.append(f"{title}: {', '.join(comparison[key])}")
    return "\n".join(lines).rstrip() + "\n"

"""The report of an evaluation run: report.json, report.md and chart.svg in one directory."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from react_agent.eval.chart import render_chart_svg
from react_agent.eval.repeat import is_unstable, pass_rate, runs_text
from react_agent.eval.runner import QuestionOutcome


def _accuracy(outcomes: Sequence[dict[str, Any]]) -> float:
    """Mean pass@1: each question's share of passing runs, averaged."""
    return round(sum(pass_rate(o) for o in outcomes) / len(outcomes), 4) if outcomes else 0.0


def _share(outcomes: Sequence[dict[str, Any]], test: Any) -> float:
    return round(sum(1 for o in outcomes if test(o)) / len(outcomes), 4) if outcomes else 0.0


def _grouped(questions: Sequence[dict[str, Any]], keys: Iterable[str]) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for question, key in zip(questions, keys, strict=True):
        groups[key].append(question)
    return {
        key: {
            "total": len(group),
            "passed": sum(q["passed"] for q in group),
            "accuracy": _accuracy(group),
        }
        for key, group in sorted(groups.items())
    }


def build_report(outcomes: Sequence[QuestionOutcome], meta: dict[str, Any]) -> dict[str, Any]:
    """Return report.json's content: accuracy, breakdowns, cost and one line per question."""
    questions = [o.as_json() for o in outcomes]
    by_tag: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for question in questions:
        for tag in question["tags"] or ["untagged"]:
            by_tag[tag].append(question)
    count = max(len(questions), 1)
    return {
        "accuracy": _accuracy(questions),
        "pass_all": _share(questions, lambda q: all(q["runs"] or [q["passed"]])),
        "pass_any": _share(questions, lambda q: any(q["runs"] or [q["passed"]])),
        "repeat": max((len(q["runs"]) for q in questions), default=1),
        "unstable": sum(1 for q in questions if is_unstable(q)),
        "total": len(questions),
        "passed": sum(q["passed"] for q in questions),
        "reasons": dict(Counter(q["reason"] for q in questions if not q["passed"])),
        "by_tag": {
            tag: _grouped(group, ["all"] * len(group))["all"]
            for tag, group in sorted(by_tag.items())
        },
        "by_difficulty": _grouped(questions, [q["difficulty"] for q in questions]),
        "cost_per_question": {
            "model_calls": round(sum(q["model_calls"] for q in questions) / count, 2),
            "prompt_tokens": round(sum(q["prompt_tokens"] for q in questions) / count, 1),
            "completion_tokens": round(sum(q["completion_tokens"] for q in questions) / count, 1),
            "seconds": round(sum(q["seconds"] for q in questions) / count, 3),
            "sql_count": round(sum(q["sql_count"] for q in questions) / count, 2),
        },
        "meta": meta,
        "questions": questions,
    }


def render_markdown(report: dict[str, Any]) -> str:
    """Return report.md: the summary, the breakdowns, then every failure with its reason."""
    cost = report["cost_per_question"]
    lines = [
        f"# Evaluation: {report['passed']}/{report['total']} passed ({report['accuracy']:.1%})",
        "",
        f"Set: `{report['meta'].get('golden_set', '?')}` · agent: "
        f"{report['meta'].get('agent', '?')} · model: {report['meta'].get('model', '?')}",
        "",
        *_repeat_line(report),
        f"Per question: {cost['model_calls']} model calls, {cost['prompt_tokens']} prompt + "
        f"{cost['completion_tokens']} completion tokens, {cost['seconds']} s, "
        f"{cost['sql_count']} SQL statements.",
        "",
        "| group | passed | accuracy |",
        "|---|---|---|",
    ]
    for kind in ("by_difficulty", "by_tag"):
        for key, group in report[kind].items():
            label = f"{kind[3:]}: {key}"
            lines.append(
                f"| {label} | {group['passed']}/{group['total']} | {group['accuracy']:.0%} |"
            )
    lines += _unstable_lines(report)
    failures = [q for q in report["questions"] if not q["passed"] and not is_unstable(q)]
    lines += ["", f"## Failures ({len(failures)})", ""]
    if failures:
        lines += ["| id | reason | detail | question |", "|---|---|---|---|"]
        lines += [
            f"| {q['id']} | {q['reason']} | {_cell(q['detail'])} | {_cell(q['question'])} |"
            for q in failures
        ]
    else:
        lines.append("None.")
    return "\n".join(lines) + "\n"


def _repeat_line(report: dict[str, Any]) -> list[str]:
    repeat = report.get("repeat", 1)
    if repeat <= 1:
        return []
    return [
        f"Each question {repeat} times: pass@1 {report['accuracy']:.1%}, passed in every run "
        f"{report['pass_all']:.1%}, in at least one {report['pass_any']:.1%}.",
        "",
    ]


def _unstable_lines(report: dict[str, Any]) -> list[str]:
    """Return the section of questions whose runs disagree (only when the set was repeated)."""
    if report.get("repeat", 1) <= 1:
        return []
    unstable = [q for q in report["questions"] if is_unstable(q)]
    lines = ["", f"## Unstable ({len(unstable)})", ""]
    if not unstable:
        return [*lines, "None."]
    lines += ["| id | runs | reason | detail | question |", "|---|---|---|---|---|"]
    return lines + [
        f"| {q['id']} | {runs_text(q)} | {q['reason']} | {_cell(q['detail'])} "
        f"| {_cell(q['question'])} |"
        for q in unstable
    ]


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")[:160]


def write_report(directory: Path, report: dict[str, Any]) -> list[Path]:
    """Write report.json, report.md and chart.svg into `directory`; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / "report.json", directory / "report.md", directory / "chart.svg"]
    paths[0].write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", "utf-8")
    paths[1].write_text(render_markdown(report), "utf-8")
    paths[2].write_text(render_chart_svg(report), "utf-8")
    return paths


def read_report(path: Path) -> dict[str, Any]:
    """Read a report.json (or the report.json inside a directory)."""
    if path.is_dir():
        path = path / "report.json"
    return json.loads(path.read_text(encoding="utf-8"))

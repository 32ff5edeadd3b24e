"""`python -m bench.model_calls.report`: bench/results/48-model-calls.md from the two JSONs."""

from __future__ import annotations

import json
from typing import Any

from bench.model_calls.__main__ import RESULTS

FIGURES = (
    ("calls", "model calls"),
    ("prompt_tokens", "prompt tokens"),
    ("completion_tokens", "completion tokens"),
    ("cached_tokens", "cached tokens (stub's simulated prefix cache)"),
    ("prefix_within", "prefix share within the turn (least)"),
    ("prefix_across", "prefix share from the previous turn"),
    ("first_prompt_chars", "first request's characters"),
    ("first_progress_ms", "first progress event (ms)"),
)


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and value <= 1.0:
        return f"{value:.1%}"
    return str(value)


def table(before: dict[str, Any], after: dict[str, Any], schema: str) -> list[str]:
    """Return the markdown rows of one schema: each figure of each question, before/after."""
    lines = [
        f"### {schema}",
        "",
        "| question | figure | before | after |",
        "|---|---|---|---|",
    ]
    for question, entry in after[schema].items():
        old = before[schema].get(question, {})
        for key, name in FIGURES:
            if key in entry or key in old:
                lines.append(
                    f"| {question} | {name} | {_cell(old.get(key))} | {_cell(entry.get(key))} |"
                )
    return [*lines, ""]


def render(before: dict[str, Any], after: dict[str, Any]) -> str:
    """Return the results page."""
    head = [
        "# #48: model calls, tokens and prompt prefixes per question",
        "",
        "`python -m bench.model_calls --code <worktree at the commit before> --label before`, "
        "`python -m bench.model_calls --label after`, then `python -m bench.model_calls.report`.",
        "",
        f"- before: commit {before['commit']}, load average {before['machine']['load_average']}",
        f"- after: commit {after['commit']}, load average {after['machine']['load_average']}",
        f"- machine: {after['machine']['platform']}, {after['machine']['cpus']} CPUs "
        f"(shared), Python {after['machine']['python']}",
        "",
    ]
    body = table(before, after, "sample") + table(before, after, "1000_tables")
    return "\n".join(head + body + NOTES)


NOTES = [
    "### Notes",
    "",
    "- The model is the tests' stub over HTTP (ChatOpenAI), 50 ms per call, answering as a "
    "tool-calling model (bench/model_calls/policy.py): it lists and describes the tables "
    "only when the schema is not in its prompt, checks its SQL when offered check_sql, "
    "runs it (two statements in one reply for the two-part question), then answers. "
    "Default settings on both sides; the before side has no schema in the prompt "
    "(SCHEMA_PROMPT_BUDGET=0 then) and offers check_sql to every run, hence 5 calls.",
    "- Tokens are the stub's estimate (about four characters per token, the messages "
    "only); cached tokens are the stub's simulation of a provider's prefix cache (the "
    "longest prefix shared with an earlier request), reported only by the after side.",
    "- Prefix share: of each request, rendered as a provider caches it (the tools, then "
    "each message), the share the next request repeats byte for byte; within a turn the "
    "least over its calls, across turns from the first turn's last request to the "
    "follow-up's first. Before, the system prompt held the time and the results so far, "
    "so it changed from call to call; after, both are in the question's context.",
    "- The first request is larger after on the sample (the whole schema is in it, about "
    "1,700 characters, instead of a list_tables call and a describe_tables call later), "
    "and much smaller on 1,000 tables (the question's tables, not the 1,000 names).",
    "- First progress event: from the run's start to its first agent or tools step. With "
    "a verified match the first step needs no model call. The machine's two cores were "
    "shared by eight helpers' runs (load average above): times of tens to hundreds of "
    "milliseconds are noise-bound; the call counts and shares are not.",
    "",
]


def main() -> None:
    """Write bench/results/48-model-calls.md from the before and after JSONs."""
    before = json.loads((RESULTS / "48-model-calls-before.json").read_text("utf-8"))
    after = json.loads((RESULTS / "48-model-calls-after.json").read_text("utf-8"))
    (RESULTS / "48-model-calls.md").write_text(render(before, after), "utf-8")


if __name__ == "__main__":
    main()

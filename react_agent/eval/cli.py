"""`python -m react_agent.eval` (also `react-agent-eval`): run a golden set, or compare two runs."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from config import Settings
from react_agent.errors import ServiceError
from react_agent.eval.compare import compare_reports, render_comparison
from react_agent.eval.golden import SAMPLE_GOLDEN_SET, read_golden_set
from react_agent.eval.progress import ProgressBar
from react_agent.eval.report import read_report, write_report
from react_agent.eval.sessions import evaluate_in_process, evaluate_over_http

USAGE_EXAMPLES = """examples:
  python -m react_agent.eval react_agent/eval/golden/sample.jsonl --out eval-out/base
  python -m react_agent.eval my_set.jsonl --out eval-out/new --url http://127.0.0.1:8084 \\
      --api-key $KEY --concurrency 8
  python -m react_agent.eval my_set.jsonl --out eval-out/rep --repeat 3
  POLICY_FILE=config/policy.sample.yaml python -m react_agent.eval --as alice --out eval-out/alice
  python -m react_agent.eval --compare eval-out/base eval-out/new
  python -m react_agent.eval --from-memory my_set.jsonl
"""


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Return the command line's options."""
    parser = argparse.ArgumentParser(
        prog="react-agent-eval",
        description="Evaluate the agent on a golden set (JSONL), scored by executing SQL.",
        epilog=USAGE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "golden", nargs="?", type=Path, help=f"the golden set (default: {SAMPLE_GOLDEN_SET.name})"
    )
    parser.add_argument("--out", type=Path, help="directory for report.json, report.md, chart")
    parser.add_argument("--url", help="a running service to ask over HTTP (default: in-process)")
    parser.add_argument("--api-key", help="the service's API key (with --url)")
    parser.add_argument("--concurrency", type=int, default=4, help="questions at once (4)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per question")
    parser.add_argument(
        "--as-of",
        type=date.fromisoformat,
        metavar="YYYY-MM-DD",
        help="use the business instructions in force on this date (in-process only)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, metavar="K", help="runs of each question (1)"
    )
    parser.add_argument(
        "--as",
        dest="as_user",
        metavar="USER",
        help="ask as this user of POLICY_FILE, scored under the same scope",
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("A", "B"),
        help="compare two reports (files or directories), regressions first",
    )
    parser.add_argument(
        "--from-memory",
        type=Path,
        metavar="OUT",
        help="write a golden set built from the memory's verified examples",
    )
    return parser.parse_args(argv)


async def run_evaluation(arguments: argparse.Namespace, settings: Settings) -> int:
    """Run the golden set as the options say and write the report; return the exit status."""
    golden = arguments.golden or SAMPLE_GOLDEN_SET
    if arguments.as_user and settings.policy_file is None:
        raise ServiceError(400, "NO_POLICY", "--as needs POLICY_FILE (the user's policy)")
    questions = read_golden_set(golden)
    repeat = max(1, arguments.repeat)
    bar = ProgressBar(len(questions) * repeat)
    options = {
        "concurrency": arguments.concurrency,
        "timeout": arguments.timeout,
        "on_done": lambda outcome: bar.advance(outcome.passed),
        "repeat": repeat,
        "as_user": arguments.as_user,
        "meta": {"golden_set": str(golden)},
    }
    if arguments.as_of is not None:
        if arguments.url:
            # Over HTTP the service's own INSTRUCTIONS_AS_OF decides; say so, do not mislead.
            raise ServiceError(
                400, "AS_OF_IN_PROCESS_ONLY", "--as-of needs an in-process run (no --url)"
            )
        settings = settings.model_copy(update={"instructions_as_of": arguments.as_of})
        options["meta"]["as_of"] = arguments.as_of.isoformat()
    if arguments.url:
        report = await evaluate_over_http(
            questions, settings, url=arguments.url, api_key=arguments.api_key, **options
        )
    else:
        report = await evaluate_in_process(questions, settings, **options)
    out = arguments.out or Path("eval-out")
    paths = write_report(out, report)
    print(f"accuracy {report['accuracy']:.1%} ({report['passed']}/{report['total']})")
    if repeat > 1:
        print(
            f"pass_all {report['pass_all']:.1%}, pass_any {report['pass_any']:.1%}, "
            f"{report['unstable']} unstable question(s)"
        )
    print("\n".join(f"wrote {path}" for path in paths))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return its exit status."""
    arguments = parse_arguments(argv)
    try:
        if arguments.compare:
            before, after = (read_report(path) for path in arguments.compare)
            comparison = compare_reports(before, after)
            sys.stdout.write(render_comparison(comparison))
            return 1 if comparison["regressions"] or comparison["became_unstable"] else 0
        settings = Settings()
        if arguments.from_memory:
            from react_agent.eval.memory_set import write_memory_golden_set

            count = asyncio.run(write_memory_golden_set(settings, arguments.from_memory))
            print(f"wrote {count} question(s) to {arguments.from_memory}")
            return 0
        return asyncio.run(run_evaluation(arguments, settings))
    except ServiceError as exc:
        print(f"error: {exc.error_type}: {exc.detail}", file=sys.stderr)
        return 2

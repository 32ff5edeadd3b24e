"""`python -m bench --sides ... --rounds N`: which sides a run measures, and how often."""

from __future__ import annotations

import pytest

from bench.options import parse_args


def test_without_sides_a_run_measures_every_side_once_as_before() -> None:
    args = parse_args([])

    assert args.sides == [
        "in_process",
        "service_stream",
        "service_max_active_32",
        "service_pg_workers_1",
        "service_pg_workers_2",
        "langgraph_server",
        "flask_reference",
        "stack_floor",
    ]
    assert (args.rounds, args.only_sides, args.runs_max_active) == (1, False, [32])


def test_skip_flags_leave_their_sides_out_of_the_default_ones() -> None:
    args = parse_args(["--quick", "--skip-peers", "--skip-postgres"])

    assert args.sides == ["in_process", "service_stream"]


def test_sides_are_kept_in_the_order_named_with_no_admission_side_unless_named() -> None:
    args = parse_args(["--sides", "langgraph_server, service_stream,in_process", "--rounds", "3"])

    assert args.sides == ["langgraph_server", "service_stream", "in_process"]
    assert (args.rounds, args.only_sides, args.runs_max_active) == (3, True, [])


def test_a_named_admission_side_sets_its_limit_and_runs_max_active_adds_its_own() -> None:
    named = parse_args(["--sides", "service_max_active_16,service_stream"])
    added = parse_args(["--sides", "service_stream", "--runs-max-active", "64"])

    assert named.runs_max_active == [16]
    assert added.sides == ["service_stream", "service_max_active_64"]
    assert added.runs_max_active == [64]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sides", "service_stream,postgres"], "unknown side postgres"),
        (["--sides", "service_max_active_0"], "unknown side service_max_active_0"),
        (["--sides", "in_process,in_process"], "in_process named more than once"),
        (["--sides", " , "], "--sides needs at least one side"),
        (
            ["--skip-postgres", "--sides", "service_pg_workers_2"],
            "service_pg_workers_2, which --skip-postgres leaves out",
        ),
        (["--skip-peers", "--sides", "langgraph_server"], "which --skip-peers leaves out"),
        (["--rounds", "0"], "--rounds takes a number from 1"),
    ],
)
def test_bad_sides_or_rounds_are_refused_with_the_reason(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)

    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_help_lists_the_side_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--help"])

    help_text = " ".join(capsys.readouterr().out.split())
    for side in ("in_process", "service_pg_workers_2", "langgraph_server", "service_max_active_N"):
        assert side in help_text

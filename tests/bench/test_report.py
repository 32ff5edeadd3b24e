"""The benchmark's report: a small results dict in, the expected results.md rows out."""

from __future__ import annotations

from typing import Any

from bench.report.markdown import markdown
from bench.report.ratios import compute_ratios


def _level(concurrency: int, completed: int, questions: int, **extra: Any) -> dict[str, Any]:
    return {
        "concurrency": concurrency,
        "questions": questions,
        "completed": completed,
        "all_completed": completed == questions,
        "errors": {},
        "throughput_qps": 4.25,
        "started_p50_ms": 10.0,
        "started_p99_ms": 21.0,
        "first_node_p50_ms": 22.0,
        "total_p50_ms": 343.0,
        "total_p99_ms": 453.0,
        "server_peak_rss_mb": 144.0,
        "server_cpu_ms_per_question": 84.0,
        "server_cpu_pct": 23.0,
        "stub_cpu_pct": 1.0,
        "client_cpu_pct": 9.0,
        "foreign_cpu_pct": 3.0,
        "listen_queue_overflows": 0,
        "disturbed": False,
        **extra,
    }


def _series(p50: float, mean: float) -> dict[str, Any]:
    return {
        "questions": 10,
        "completed": 10,
        "total_p50_ms": p50,
        "total_mean_ms": mean,
        "total_p99_ms": p50 * 2,
        "foreign_cpu_pct": 5.0,
        "disturbed": False,
    }


def small_results() -> dict[str, Any]:
    results: dict[str, Any] = {
        "meta": {"date": "2026-01-01T00:00:00+00:00", "cpu_count": 2, "quick": True},
        "in_process": {
            "astream": _series(200.0, 210.0),
            "runner": _series(300.0, 310.0),
            "levels": {"1": _level(1, 10, 10)},
        },
        "service_stream": {
            "server": "python -m app",
            "sequential": _series(400.0, 420.0),
            "levels": {
                "1": _level(1, 10, 10),
                "10": _level(10, 28, 30, errors={"HTTP 503": 2}, disturbed=True),
            },
        },
        "service_sync": {"sequential": _series(500.0, 520.0)},
        "langgraph_server": {"error": "the `langgraph` command is missing"},
        "flask_reference": {"levels": {"1": _level(1, 10, 10, throughput_qps=1.0)}},
        "checkpointer": {
            "sqlite": {"sequential": _series(250.0, 260.0), "locks": "InProcessThreadLocks"},
            "postgres": {"unavailable": "PostgreSQL is not usable: refused"},
            "memory": {"sequential": _series(240.0, 250.0)},
        },
        "network": {"outside_sockets": []},
    }
    results["ratios"] = compute_ratios(results)
    return results


def test_overhead_rows_divide_each_side_by_the_in_process_astream_p50() -> None:
    lines = markdown(small_results()).splitlines()

    assert (
        "| in-process graph `astream` (the baseline) | 10/10 | 200.0 | 210.0 | 400.0 | 1.000 | 5 |"
        in lines
    )
    assert (
        "| our service, stream (HTTP + SSE) | 10/10 | 400.0 | 420.0 | 800.0 | 2.000 | 5 |" in lines
    )
    assert (
        "| our service, sync (HTTP + JSON) | 10/10 | 500.0 | 520.0 | 1000.0 | 2.500 | 5 |" in lines
    )


def test_concurrency_table_has_a_row_per_side_and_level_and_marks_incomplete_ones() -> None:
    lines = markdown(small_results()).splitlines()

    assert (
        "| our service (stream) | 1 | 10/10 | 4.2 | 10 / 21 | 22 | 343 / 453 | 144 | 84.0 "
        "| 23 / 1 / 9 | 3 |"
    ) in lines
    assert (
        "| our service (stream) | 10 | 28/30 ⚠ | 4.2 | 10 / 21 | 22 | 343 / 453 | 144 | 84.0 "
        "| 23 / 1 / 9 | 3 ⚠ |"
    ) in lines
    in_process_rows = [
        line for line in lines if line.startswith("| in-process graph (astream) | 1 | 10/10 |")
    ]
    assert len(in_process_rows) == 1


def test_a_side_that_failed_to_start_is_listed_with_its_error() -> None:
    lines = markdown(small_results()).splitlines()

    assert (
        "| langgraph dev | – | failed: the `langgraph` command is missing | | | | | | | | |"
    ) in lines


def test_peer_ratios_are_ours_over_theirs_per_level() -> None:
    lines = markdown(small_results()).splitlines()

    assert (
        "| Flask reference | 1 | 4.25 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 |" in lines
    )
    assert not any(line.startswith("| langgraph dev | 1 |") for line in lines)


def test_checkpointer_table_gives_the_extra_time_over_memory_and_why_one_is_missing() -> None:
    lines = markdown(small_results()).splitlines()

    assert "| sqlite | 260.0 | 250.0 | 500.0 | 10.0 | – (InProcessThreadLocks) | – |" in lines
    assert "| postgres | unavailable: PostgreSQL is not usable: refused | | | | | |" in lines


def test_errors_of_a_level_appear_in_the_notes_and_no_profile_section_without_a_profile() -> None:
    text = markdown(small_results())

    assert "- our service (stream) c=10 errors: HTTP 503 ×2" in text.splitlines()
    assert "## 7." not in text


def scale_results() -> dict[str, Any]:
    """small_results plus c=100/500 levels, the PostgreSQL and admission sides, a slow level."""
    results = small_results()
    results["in_process"]["levels"]["100"] = _level(100, 200, 200, throughput_qps=20.0)
    results["langgraph_server"] = {"levels": {"100": _level(100, 200, 200, throughput_qps=16.0)}}
    results["service_stream"]["levels"].update(
        {
            "100": _level(100, 200, 200, throughput_qps=21.0),
            "500": _level(500, 500, 500, throughput_qps=18.0, started_p99_ms=750.0),
        }
    )
    results["service_max_active_32"] = {
        "levels": {
            "100": _level(100, 200, 200, throughput_qps=22.0, started_p99_ms=12.0),
            "500": _level(500, 500, 500, throughput_qps=19.8, started_p99_ms=40.0),
        }
    }
    results["service_pg_workers_1"] = {
        "levels": {"100": _level(100, 200, 200, throughput_qps=15.0)}
    }
    results["service_pg_workers_2"] = {
        "levels": {"100": _level(100, 200, 200, throughput_qps=27.0)}
    }
    results["slow_streams"] = {
        "side": "service_stream",
        "server": "python -m app",
        "runs_max_active": 0,
        "streams": 2000,
        "latency_ms": 2000.0,
        "model_calls_per_question": 3,
        "questions": 2000,
        "completed": 1990,
        "errors": {"HTTP 503": 10},
        "started_p50_ms": 30.0,
        "started_p99_ms": 900.0,
        "total_p50_ms": 7000.0,
        "total_p99_ms": 12000.0,
        "peak_open_streams": 2000,
        "rss_before_mb": 180.0,
        "server_peak_rss_mb": 250.0,
        "rss_per_open_stream_kb": 35.8,
        "fds_before": 24,
        "fds_peak_during": 2400,
        "fds_after": 25,
        "fds_flat": True,
        "fds_flat_tolerance": 16,
        "fds_by_kind": {"idle": {"total": 90, "model_connections": 66}},
    }
    results["stack_floor"] = {
        "levels": {"500": _level(500, 1000, 1000, throughput_qps=900.0, started_p99_ms=610.0)}
    }
    results["slow_streams_floor"] = {
        **results["slow_streams"],
        "side": "stack_floor",
        "completed": 2000,
        "errors": {},
        "rss_per_open_stream_kb": 31.2,
        "fds_before": 20,
        "fds_peak_during": 2030,
        "fds_after": 20,
    }
    results["ratios"] = compute_ratios(results)
    return results


def test_targets_compare_figures_of_the_same_run_and_say_which_are_met() -> None:
    lines = markdown(scale_results()).splitlines()

    assert (
        "| our service (stream), c=100: q/s / in-process graph | 1.05× (21.0 / 20.0 q/s) "
        "| ≥ 0.95× | met | – |"
    ) in lines
    assert (
        "| our service (stream), c=100: q/s / langgraph dev | 1.31× (21.0 / 16.0 q/s) "
        "| ≥ 1.20× | met | – |"
    ) in lines
    assert (
        "| ours on PostgreSQL, 1 worker, c=100: q/s / in-process graph | 0.75× (15.0 / 20.0 q/s) "
        "| ≥ 0.95× | **not met** | – |"
    ) in lines
    assert (
        "| ours on PostgreSQL, 2 workers, c=100: q/s / 1 worker on PostgreSQL "
        "| 1.80× (27.0 / 15.0 q/s) | ≥ 1.60× | met | – |"
    ) in lines
    assert (
        "| ours on PostgreSQL, 2 workers, c=100: q/s / langgraph dev | 1.69× (27.0 / 16.0 q/s) "
        "| ≥ 2.00× | **not met** | – |"
    ) in lines


def test_started_p99_target_is_checked_for_ours_with_and_without_admission() -> None:
    lines = markdown(scale_results()).splitlines()

    assert (
        "| our service (stream), c=500: started p99 | 750 ms | ≤ 50 ms | **not met** | 610 ms |"
    ) in lines
    assert (
        "| our service (stream), RUNS_MAX_ACTIVE=32, c=500: started p99 | 40 ms | ≤ 50 ms | met "
        "| 610 ms |"
    ) in lines
    assert (
        "| ours on PostgreSQL, 1 worker, c=500: started p99 | not measured | ≤ 50 ms | – | 610 ms |"
    ) in lines


def test_slow_level_targets_and_its_section() -> None:
    lines = markdown(scale_results()).splitlines()

    assert (
        "| slow model, 2000 streams at once: completed | 1990/2000 (99.5 %) | 100 % | **not met** "
        "| 2000/2000 |"
    ) in lines
    assert (
        "| slow model, 2000 streams at once: RSS per open stream | 36 KB | ≤ 50 KB | met | 31 KB |"
    ) in lines
    assert (
        "| slow model, 2000 streams at once: file descriptors after / before "
        "| 25 / 24 (peak 2400) | flat (within 16) | met | – |"
    ) in lines
    assert "## 6. Slow model: 2000 streams at once, 2000 ms per model call" in lines
    assert "| figure | ours | floor (no graph) |" in lines
    assert "| RSS per open stream KB | 35.8 | 31.2 |" in lines
    assert (
        "| server FDs before / peak during / after | 24 / 2400 / 25 (flat) "
        "| 20 / 2030 / 20 (flat) |"
    ) in lines


def test_without_a_floor_the_slow_section_has_one_column() -> None:
    results = scale_results()
    del results["slow_streams_floor"]
    lines = markdown(results).splitlines()

    assert "| figure | value |" in lines
    assert "| RSS per open stream KB | 35.8 |" in lines
    assert (
        "| slow model, 2000 streams at once: RSS per open stream | 36 KB | ≤ 50 KB | met | – |"
    ) in lines
    assert "Errors: HTTP 503 ×10" in lines


def test_targets_not_measured_in_a_run_are_left_open() -> None:
    lines = markdown(small_results()).splitlines()

    assert ("| slow model, – streams at once: completed | not measured | 100 % | – | – |") in lines
    assert "| our service (stream), c=500: started p99 | not measured | ≤ 50 ms | – | – |" in lines
    assert not any(line.startswith("## 5. Admission") for line in lines)


def test_admission_rows_compare_each_limit_with_no_limit_at_the_same_level() -> None:
    lines = markdown(scale_results()).splitlines()

    assert (
        "| auto (default) | 500 | 500/500 | 18.0 | 1.00 | 10 / 750 | 343 / 453 | 84.0 | 3 |"
        in lines
    )
    assert "| 32 | 500 | 500/500 | 19.8 | 1.10 | 10 / 40 | 343 / 453 | 84.0 | 3 |" in lines
    assert not any(line.startswith("| auto (default) | 1 |") for line in lines)
    concurrency_rows = [
        line
        for line in lines
        if line.startswith("| our service (stream), RUNS_MAX_ACTIVE=32 | 500 |")
    ]
    assert len(concurrency_rows) == 1


def test_a_slow_only_run_shows_only_its_targets_and_its_section() -> None:
    results = scale_results()
    results["meta"]["slow_only"] = True
    text = markdown(results)

    assert "## 6. Slow model: 2000 streams at once, 2000 ms per model call" in text
    assert "## 1. Overhead" not in text
    assert "## 2. Concurrency" not in text
    assert "The slow-model level alone (--slow-only)" in text

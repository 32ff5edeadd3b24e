"""Whether the soak passed, and its human-readable table."""

from __future__ import annotations

from typing import Any

from app.streaming.runs import FINISHED_RUN_TTL


def verdict(results: dict[str, Any], alive: bool) -> list[str]:
    """Return why the soak failed (empty when it passed)."""
    failures = []
    streams = results["streams"]
    service = results["service"]
    config = results["config"]
    if streams["broken"]:
        failures.append(f"streams that did not end properly: {streams['broken']}")
    if streams["started"] != streams["finished"]:
        failures.append(f"{streams['started'] - streams['finished']} streams never finished")
    if not streams["completed"]:
        failures.append("no stream completed")
    if not alive:
        failures.append("the service process died")
    if any(probe["outcome"] != "completed" for probe in results["probes"]):
        failures.append(f"a probe question did not complete: {results['probes']}")
    baseline, after = service["baseline_after_warmup"], service["after"]
    limit = baseline["rss_mb"] * config["max_rss_growth"]
    if after["rss_mb"] > limit:
        failures.append(
            f"RSS grew from {baseline['rss_mb']} MB to {after['rss_mb']} MB (> {limit:.0f})"
        )
    drift = service["rss_second_half"]
    if drift is not None and drift["growth"] > config["max_rss_drift"]:
        failures.append(
            f"RSS still grew by {drift['growth']:.1%} in the second half of the load "
            f"({drift['third_quarter_median_mb']} -> {drift['last_quarter_median_mb']} MB)"
        )
    if after["fds"] > baseline["fds"] + config["fd_slack"]:
        failures.append(
            f"open FDs did not return to the baseline: {baseline['fds']} -> {after['fds']}"
        )
    return failures


def report_table(results: dict[str, Any]) -> str:
    """Return the human-readable summary of a soak."""
    config, streams, latency = results["config"], results["streams"], results["latency_s"]
    service = results["service"]
    rows = [
        ("concurrency / duration", f"{config['concurrency']} streams / {config['duration_s']} s"),
        ("model latency per call", f"{config['latency_ms']} ms"),
        ("streams started", streams["started"]),
        ("streams completed", streams["completed"]),
        ("streams errored", streams["errored"] or 0),
        ("streams broken", streams["broken"] or 0),
        ("throughput", f"{results['throughput_per_s']} completed/s"),
        ("latency p50 / p90 / p99 / max", " / ".join(f"{latency[k]} s" for k in latency)),
        (
            "first event p50 / p99",
            " / ".join(f"{results['first_event_s'][k]} s" for k in ("p50", "p99")),
        ),
    ]
    for label, key in (
        ("idle after start", "idle_after_start"),
        ("baseline (after warm-up)", "baseline_after_warmup"),
        ("after (settled)", "after"),
    ):
        sample = service[key]
        rows.append(
            (
                f"service {label}",
                f"RSS {sample['rss_mb']} MB, {sample['fds']} FDs ({sample['sockets']} sockets), "
                f"{sample['threads']} threads",
            )
        )
    probes = " / ".join(f"{p['outcome']} in {p['latency']:.2f} s" for p in results["probes"])
    rows.append(("probe question before / after", probes))
    peak = service["peak"]
    rows.append(("service peak during load", f"RSS {peak['rss_mb']} MB, {peak['fds']} FDs"))
    drift = service["rss_second_half"]
    rows.append(
        (
            "RSS median, 3rd -> 4th quarter",
            f"{drift['third_quarter_median_mb']} MB -> {drift['last_quarter_median_mb']} MB "
            f"({drift['growth']:+.2%})"
            if drift
            else f"not judged (load shorter than {2 * FINISHED_RUN_TTL:.0f} s)",
        )
    )
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {value}" for label, value in rows]
    verdict_line = "PASS" if results["ok"] else "FAIL: " + "; ".join(results["failures"])
    return "\n".join([*lines, f"{'verdict':<{width}}  {verdict_line}"])

"""Stream event ids, `<run_id>:<seq>`: what `id:` lines carry and `Last-Event-ID` sends back."""

from __future__ import annotations


def format_event_id(run_id: str, seq: int) -> str:
    """Return the id of the `seq`-th event (counting from 1) of a run's stream."""
    return f"{run_id}:{seq}"


def parse_event_id(event_id: str) -> tuple[str, int]:
    """Return the run id and sequence number of an event id; 0 when the number is missing."""
    run_id, _, seq = event_id.partition(":")
    return run_id, int(seq) if seq.isdigit() else 0

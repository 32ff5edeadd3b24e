"""Checkpoint writes in one statement each: a checkpoint with its blobs, a task's writes.

AsyncPostgresSaver stores a checkpoint as one INSERT per changed channel's blob plus the
checkpoint's own, and a task's writes as one INSERT per write, each batch pipelined, its
rows serialized in a worker thread. A question of the sample graph made 80 such
statements (47 writes, 20 blobs, 13 checkpoints) and 26 thread hops; as one statement per
call, with the rows as arrays (`unnest`), it makes 26 and no hop: the same rows, in the
same tables, for less CPU in the process and in PostgreSQL. The arrays go in binary
(`%(name)b`): psycopg quotes each element of a text-format array with a regular expression.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.base import WRITES_IDX_MAP, ChannelVersions, Checkpoint
from langgraph.checkpoint.serde.types import _DeltaSnapshot

UPSERT_CHECKPOINT_WITH_BLOBS = """
    WITH blobs AS (
        INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
        SELECT %(thread_id)s, %(checkpoint_ns)s, b.channel, b.version, b.type, b.blob
        FROM unnest(%(channels)b::text[], %(versions)b::text[], %(types)b::text[],
                    %(blobs)b::bytea[]) AS b(channel, version, type, blob)
        ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
    )
    INSERT INTO checkpoints
        (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
    VALUES (%(thread_id)s, %(checkpoint_ns)s, %(checkpoint_id)s, %(parent_id)s,
            %(checkpoint)s, %(metadata)s)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id)
    DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
"""
"""A checkpoint and its changed channels' blobs (a data-modifying CTE runs in any case)."""

_WRITES_SELECT = """
    INSERT INTO checkpoint_writes
        (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
    SELECT %(thread_id)s, %(checkpoint_ns)s, %(checkpoint_id)s, %(task_id)s, %(task_path)s,
           w.idx, w.channel, w.type, w.blob
    FROM unnest(%(idx)b::integer[], %(channels)b::text[], %(types)b::text[],
                %(blobs)b::bytea[]) AS w(idx, channel, type, blob)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
"""

UPSERT_WRITES = (
    _WRITES_SELECT
    + " DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob"
)
"""A task's writes to special channels (errors, interrupts, resumes): the last one wins."""

INSERT_WRITES = _WRITES_SELECT + " DO NOTHING"
"""A task's writes to ordinary channels: stored once (a retry writes the same)."""


def split_blobs(checkpoint: Checkpoint) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the checkpoint's inline copy and the values it keeps in blobs (as the saver does).

    Primitive values stay in the checkpoint's `channel_values`; others (and delta
    snapshots, marked `True` inline) go to `checkpoint_blobs`.
    """
    copy: dict[str, Any] = {**checkpoint, "channel_values": dict(checkpoint["channel_values"])}
    blob_values: dict[str, Any] = {}
    for key, value in checkpoint["channel_values"].items():
        if isinstance(value, _DeltaSnapshot):
            blob_values[key] = copy["channel_values"].pop(key)
            copy["channel_values"][key] = True
        elif value is None or isinstance(value, str | int | float | bool):
            continue
        else:
            blob_values[key] = copy["channel_values"].pop(key)
    return copy, blob_values


def blob_arrays(
    blob_rows: Sequence[tuple[str, str, str, str, str, bytes | None]],
) -> dict[str, list[Any]]:
    """Return `_dump_blobs` rows as the statement's arrays (channel, version, type, blob)."""
    return {
        "channels": [row[2] for row in blob_rows],
        "versions": [row[3] for row in blob_rows],
        "types": [row[4] for row in blob_rows],
        "blobs": [row[5] for row in blob_rows],
    }


def write_arrays(
    write_rows: Sequence[tuple[str, str, str, str, str, int, str, str, bytes]],
) -> dict[str, list[Any]]:
    """Return `_dump_writes` rows as the statement's arrays (idx, channel, type, blob)."""
    return {
        "idx": [row[5] for row in write_rows],
        "channels": [row[6] for row in write_rows],
        "types": [row[7] for row in write_rows],
        "blobs": [row[8] for row in write_rows],
    }


def writes_statement(writes: Sequence[tuple[str, Any]], idx: Sequence[int]) -> str | None:
    """Return the statement for a task's writes, or None if one statement cannot take them.

    An upsert may not touch one row twice in a statement, so writes to special channels
    with a repeated index (LangGraph keeps only the last of each) go row by row.
    """
    if all(channel in WRITES_IDX_MAP for channel, _ in writes):
        return UPSERT_WRITES if len(set(idx)) == len(idx) else None
    return INSERT_WRITES


def new_blob_versions(
    blob_values: dict[str, Any], new_versions: ChannelVersions
) -> ChannelVersions:
    """Return the new versions of the channels kept in blobs (those written this step)."""
    return {key: version for key, version in new_versions.items() if key in blob_values}

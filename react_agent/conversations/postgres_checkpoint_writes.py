"""The rows of a checkpoint and of a task's writes, as AsyncPostgresSaver lays them out.

AsyncPostgresSaver stores a checkpoint as one INSERT per changed channel's blob plus the
checkpoint's own, and a task's writes as one INSERT per write, each batch pipelined, its
rows serialized in a worker thread. A question of the sample graph made 80 such
statements (47 writes, 20 blobs, 13 checkpoints) and 26 thread hops; here the same rows
go to the same tables in statements of many rows each (conversations/
postgres_checkpoint_batches), serialized in the event loop as the SQLite saver does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.base import WRITES_IDX_MAP, ChannelVersions, Checkpoint
from langgraph.checkpoint.serde.types import _DeltaSnapshot


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


def new_blob_versions(
    blob_values: dict[str, Any], new_versions: ChannelVersions
) -> ChannelVersions:
    """Return the new versions of the channels kept in blobs (those written this step)."""
    return {key: version for key, version in new_versions.items() if key in blob_values}


def writes_upsert(writes: Sequence[tuple[str, Any]], idx: Sequence[int]) -> bool | None:
    """Return whether a task's writes replace earlier ones, or None if one statement can't.

    Writes to special channels only (errors, interrupts, resumes) replace: the last one
    wins. An upsert may not touch one row twice in a statement, so such writes with a
    repeated index (LangGraph keeps only the last of each) go row by row instead.
    """
    if all(channel in WRITES_IDX_MAP for channel, _ in writes):
        return True if len(set(idx)) == len(idx) else None
    return False

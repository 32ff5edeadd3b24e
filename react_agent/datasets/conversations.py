"""Which dataset a conversation asks about: kept on disk beside the datasets, per thread.

A question that names a dataset binds its conversation to it; every later run of that
conversation (a follow-up, a reload, an approval's resume) and every export of its
results reads the same dataset, in any worker (the file is beside the datasets, which
every worker shares), without the request naming it again.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Binding:
    """A conversation's dataset: whose it is and its id."""

    user_id: str
    dataset_id: str


class ConversationDatasets:
    """Thread id → the dataset its questions read, one small JSON file per thread.

    Args:
        root: The folder the files are kept in (`<datasets>/conversations`).

    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def bind(self, thread_id: str, user_id: str, dataset_id: str) -> None:
        """Make `dataset_id` (of `user_id`) the dataset of the conversation `thread_id`."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self._path(thread_id)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(
            json.dumps({"thread_id": thread_id, "user_id": user_id, "dataset_id": dataset_id})
        )
        scratch.replace(path)  # whole or not at all: a reader never sees half a file

    def bound(self, thread_id: str) -> Binding | None:
        """Return the conversation's dataset, or None when it asks about the shared data."""
        try:
            data = json.loads(self._path(thread_id).read_text())
        except (OSError, ValueError):
            return None
        if data.get("thread_id") != thread_id:
            return None
        return Binding(str(data["user_id"]), str(data["dataset_id"]))

    def unbind_dataset(self, user_id: str, dataset_id: str) -> int:
        """Forget every conversation bound to a deleted dataset; return how many."""
        if not self.root.is_dir():
            return 0
        count = 0
        for path in self.root.glob("*.json"):
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if data.get("user_id") == user_id and data.get("dataset_id") == dataset_id:
                path.unlink(missing_ok=True)
                count += 1
        return count

    def _path(self, thread_id: str) -> Path:
        # A digest, so no thread id (however spelled) names a path of its own choosing.
        return self.root / f"{hashlib.sha256(thread_id.encode()).hexdigest()[:40]}.json"

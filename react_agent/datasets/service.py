"""Datasets as the routes and the ask path use them: the store plus their open sources."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from react_agent.databases.base import SQLDatabase
from react_agent.databases.duckdb.files import DuckDBFiles
from react_agent.datasets.conversations import ConversationDatasets
from react_agent.datasets.store import Dataset, DatasetStore
from react_agent.datasets.updates import UpdateMode, update_dataset

logger = logging.getLogger(__name__)


class Datasets:
    """Users' datasets: kept by a DatasetStore, opened as DuckDB sources on first question.

    Args:
        root: The folder holding a folder per user.
        max_per_user: Most datasets one user keeps at once.
        file_options: DuckDB's memory limit and threads.
        keep_open: Most datasets kept open; the least recently asked about closes beyond it.

    """

    def __init__(
        self, root: Path, *, max_per_user: int, file_options: dict[str, Any], keep_open: int = 8
    ) -> None:
        self.file_options = file_options
        self.store = DatasetStore(root, max_per_user=max_per_user, open_source=self._open_folder)
        self.conversations = ConversationDatasets(root / "conversations")
        self.keep_open = keep_open
        self._open: dict[Path, SQLDatabase] = {}
        self._opening = asyncio.Lock()

    async def create(self, user_id: str, filename: str, content: bytes) -> Dataset:
        """Keep an upload as a dataset of `user_id` (see DatasetStore.create)."""
        return await self.store.create(user_id, filename, content)

    def list(self, user_id: str) -> list[Dataset]:
        """Return the user's datasets, newest first."""
        return self.store.list(user_id)

    async def delete(self, user_id: str, dataset_id: str) -> None:
        """Close the dataset's source if open, then remove it (404 unless it is theirs)."""
        folder = self.store.folder(user_id, dataset_id)
        await self._close(folder)
        self.store.delete(user_id, dataset_id)
        # Its conversations ask about the shared data again, as a new one would.
        self.conversations.unbind_dataset(user_id, dataset_id)

    async def update(
        self, user_id: str, dataset_id: str, filename: str, content: bytes, mode: UpdateMode
    ) -> Dataset:
        """Replace or append to the user's dataset in place (see datasets/updates)."""
        folder = self.store.folder(user_id, dataset_id)
        async with self._opening:  # no question opens it while its file changes
            await self._close(folder)
            return await update_dataset(self.store, user_id, dataset_id, filename, content, mode)

    async def bind(self, thread_id: str, user_id: str, dataset_id: str) -> None:
        """Make the user's dataset the one the conversation reads (404 unless it is theirs)."""
        await self.source(user_id, dataset_id)  # exists, is theirs, and opens
        self.conversations.bind(thread_id, user_id, dataset_id)

    async def source_of_conversation(self, thread_id: str) -> tuple[str, SQLDatabase] | None:
        """Return (folder URL, open source) of the conversation's dataset; None if it has none."""
        binding = self.conversations.bound(thread_id)
        if binding is None:
            return None
        source = await self.source(binding.user_id, binding.dataset_id)
        folder = self.store.folder(binding.user_id, binding.dataset_id)
        return f"duckdb:///{folder}", source

    async def source(self, user_id: str, dataset_id: str) -> SQLDatabase:
        """Return the user's dataset as an open source (404 DATASET_NOT_FOUND unless theirs)."""
        folder = self.store.folder(user_id, dataset_id)
        # One opening at a time: two first questions about a dataset share one source.
        async with self._opening:
            source = self._open.pop(folder, None) or await self._open_folder(folder)
            self._open[folder] = source  # most recently used last
            while len(self._open) > self.keep_open:
                await self._close(next(iter(self._open)))
        return source

    async def aclose(self) -> None:
        """Close every open source."""
        for folder in list(self._open):
            await self._close(folder)

    async def _open_folder(self, folder: Path) -> DuckDBFiles:
        return await DuckDBFiles.open(f"duckdb:///{folder}", **self.file_options)

    async def _close(self, folder: Path) -> None:
        source = self._open.pop(folder, None)
        if source is None:
            return
        try:
            await source.aclose()
        except Exception as exc:  # a question still running on it: it fails, nothing else
            logger.info("dataset source at %s closed while busy: %s", folder, exc)

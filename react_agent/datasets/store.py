"""Uploaded datasets on disk: a folder per user, a folder per dataset with its file and facts."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import secrets
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from react_agent.databases.duckdb.files import DuckDBFiles
from react_agent.datasets.sniffing import sniff_suffix
from react_agent.errors import ServiceError

_FACTS = "dataset.json"
_ID = re.compile(r"^[0-9a-f]{16}$")
_SAFE_STEM = re.compile(r"[^\w\u4e00-\u9fff-]+")


@dataclass(frozen=True)
class Dataset:
    """One upload: its id, name, tables (name, columns, row_count), size and time."""

    dataset_id: str
    name: str
    tables: list[dict[str, Any]]
    size_bytes: int
    created_at: str

    def as_data(self) -> dict[str, Any]:
        """Return the dataset as the API shows it."""
        return asdict(self)


class DatasetStore:
    """Datasets kept under `root`; a user reaches only the datasets they uploaded.

    Args:
        root: The folder holding a folder per user.
        max_per_user: Most datasets one user keeps at once.
        open_source: Opens a dataset folder as a DuckDB source (the settings' limits).

    """

    def __init__(
        self,
        root: Path,
        *,
        max_per_user: int,
        open_source: Callable[[Path], Awaitable[DuckDBFiles]],
    ) -> None:
        self.root = root
        self.max_per_user = max_per_user
        self.open_source = open_source

    def folder(self, user_id: str, dataset_id: str) -> Path:
        """Return the folder of a user's dataset; 404 DATASET_NOT_FOUND unless it is theirs."""
        if not _ID.match(dataset_id):
            raise not_found(dataset_id)
        folder = self._user_folder(user_id) / dataset_id
        if not (folder / _FACTS).is_file():
            raise not_found(dataset_id)  # another user's is as absent as a missing one
        return folder

    async def create(self, user_id: str, filename: str, content: bytes) -> Dataset:
        """Keep an upload as a new dataset of `user_id`; its tables are read once to check it.

        Raises:
            ServiceError: 400 DATASET_UNSUPPORTED or DATASET_UNREADABLE, 409 DATASET_LIMIT.

        """
        if len(self.list(user_id)) >= self.max_per_user:
            raise ServiceError(
                409,
                "DATASET_LIMIT",
                f"user {user_id} already keeps {self.max_per_user} datasets; delete one first",
                can_retry=False,
            )
        suffix = sniff_suffix(content[:65536], filename)
        stem = _SAFE_STEM.sub("_", Path(filename).stem).strip("_") or "data"
        dataset_id = secrets.token_hex(8)
        folder = self._user_folder(user_id) / dataset_id
        folder.mkdir(parents=True)
        try:
            (folder / f"{stem}{suffix}").write_bytes(content)
            tables = await self.read_tables(folder)
            dataset = Dataset(
                dataset_id,
                Path(filename).name or stem,
                tables,
                len(content),
                dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            )
            (folder / _FACTS).write_text(json.dumps(dataset.as_data(), ensure_ascii=False))
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return dataset

    def list(self, user_id: str) -> list[Dataset]:
        """Return the user's datasets, newest first."""
        folder = self._user_folder(user_id)
        if not folder.is_dir():
            return []
        found = [Dataset(**json.loads(facts.read_text())) for facts in folder.glob(f"*/{_FACTS}")]
        return sorted(found, key=lambda d: (d.created_at, d.dataset_id), reverse=True)

    def delete(self, user_id: str, dataset_id: str) -> None:
        """Remove a user's dataset (404 DATASET_NOT_FOUND unless it is theirs)."""
        shutil.rmtree(self.folder(user_id, dataset_id))

    def _user_folder(self, user_id: str) -> Path:
        # A digest, so no user id (however spelled) names a path of its own choosing.
        return self.root / hashlib.sha256(user_id.encode()).hexdigest()[:32]

    async def read_tables(self, folder: Path) -> list[dict[str, Any]]:
        """Return the tables of a dataset folder (name, columns, row count), read once."""
        try:
            source = await self.open_source(folder)
        except ServiceError as exc:
            raise unreadable(exc.detail) from exc
        try:
            infos = await source.describe_tables(await source.list_tables())
        finally:
            await source.aclose()
        if not infos:
            raise unreadable("no table could be read from the file")
        return [
            {"name": i.name, "columns": [c for c, _ in i.columns], "row_count": i.row_count}
            for i in infos
        ]


def not_found(dataset_id: str) -> ServiceError:
    """Return the 404 for a dataset the caller does not have."""
    return ServiceError(404, "DATASET_NOT_FOUND", f"no dataset {dataset_id}", can_retry=False)


def unreadable(detail: str) -> ServiceError:
    """Return the 400 for an upload whose tables cannot be read."""
    return ServiceError(400, "DATASET_UNREADABLE", f"the file cannot be read: {detail}")

"""Appending to or replacing a dataset in place, keeping every table and column it had.

The dataset keeps its id, its tables' names (the file keeps its name) and every column
they had, so the conversations bound to it and the memory's examples whose SQL reads its
tables go on working; an update that would drop a table or a column is refused (409
DATASET_INCOMPATIBLE) and the dataset is left as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Literal

from react_agent.databases.duckdb.file_tables import TEXT_SUFFIXES, text_encoding
from react_agent.datasets.sniffing import sniff_suffix
from react_agent.datasets.store import Dataset, DatasetStore
from react_agent.errors import ServiceError

UpdateMode = Literal["replace", "append"]
_FACTS = "dataset.json"


async def update_dataset(
    store: DatasetStore,
    user_id: str,
    dataset_id: str,
    filename: str,
    content: bytes,
    mode: UpdateMode,
) -> Dataset:
    """Replace the dataset's file with `content`, or append its rows (CSV, TSV); see module.

    Raises:
        ServiceError: 404 DATASET_NOT_FOUND, 400 DATASET_UNSUPPORTED or DATASET_UNREADABLE,
            400 DATASET_APPEND_UNSUPPORTED (not text on both sides), 409 DATASET_INCOMPATIBLE.

    """
    folder = store.folder(user_id, dataset_id)
    before = Dataset(**json.loads((folder / _FACTS).read_text()))
    (current,) = [p for p in folder.iterdir() if p.is_file() and p.name != _FACTS]
    suffix = sniff_suffix(content[:65536], filename)
    backup = folder.parent / f".{dataset_id}.previous{current.suffix}"
    shutil.move(current, backup)
    try:
        if mode == "append":
            target = current
            target.write_text(_appended(backup, content, suffix), encoding="utf-8")
        else:
            target = folder / f"{current.stem}{suffix}"  # the same name: the same table names
            target.write_bytes(content)
        tables = await store.read_tables(folder)
        _require_compatible(before.tables, tables)
        after = Dataset(dataset_id, before.name, tables, target.stat().st_size, before.created_at)
        (folder / _FACTS).write_text(json.dumps(after.as_data(), ensure_ascii=False))
    except BaseException:
        for path in folder.iterdir():
            if path.name != _FACTS:
                path.unlink()
        shutil.move(backup, current)
        raise
    backup.unlink()
    return after


def _appended(previous: Path, content: bytes, suffix: str) -> str:
    """Return the previous text file's rows followed by the upload's, under one header."""
    if previous.suffix.lower() not in TEXT_SUFFIXES or suffix not in TEXT_SUFFIXES:
        raise ServiceError(
            400,
            "DATASET_APPEND_UNSUPPORTED",
            "rows can be appended to a CSV or TSV dataset from a CSV or TSV file; "
            "replace the dataset instead (mode=replace)",
            can_retry=False,
        )
    upload = previous.with_name(f".upload{suffix}")
    upload.write_bytes(content)
    try:
        new_text = content.decode(text_encoding(upload))
    finally:
        upload.unlink()
    old_text = previous.read_bytes().decode(text_encoding(previous))
    old_header, _, _ = old_text.lstrip("\ufeff").partition("\n")
    new_header, _, rows = new_text.lstrip("\ufeff").partition("\n")
    if new_header.strip() != old_header.strip():
        raise incompatible(f"the header {new_header.strip()!r} is not {old_header.strip()!r}")
    return old_text.rstrip("\r\n") + "\n" + rows


def _require_compatible(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    """Raise unless every table of `before` is in `after` with at least its columns."""
    found = {table["name"]: set(table["columns"]) for table in after}
    for table in before:
        if table["name"] not in found:
            raise incompatible(f"the table {table['name']} would be gone")
        missing = [c for c in table["columns"] if c not in found[table["name"]]]
        if missing:
            raise incompatible(f"{table['name']} would lose {', '.join(missing)}")


def incompatible(detail: str) -> ServiceError:
    """Return the 409 of an update that would break what reads the dataset."""
    return ServiceError(
        409,
        "DATASET_INCOMPATIBLE",
        f"{detail}: conversations and memory examples that read the dataset would break; "
        "upload it as a new dataset instead",
        can_retry=False,
    )

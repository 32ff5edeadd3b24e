"""What kind of data file an upload is, from its first bytes rather than its name."""

from __future__ import annotations

import json

from react_agent.errors import ServiceError

_ZIP = b"PK\x03\x04"
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # .xls (and other old Office files)
_PARQUET = b"PAR1"
_WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".ods")


def sniff_suffix(head: bytes, filename: str) -> str:
    """Return the suffix the upload is stored under: .xlsx, .xls, .parquet, .jsonl, .tsv or .csv.

    Raises:
        ServiceError: 400 DATASET_UNSUPPORTED for anything else (images, archives, binaries).

    """
    name = filename.lower()
    if head.startswith(_ZIP):
        return next((s for s in _WORKBOOK_SUFFIXES if name.endswith(s)), ".xlsx")
    if head.startswith(_OLE):
        return ".xls"
    if head.startswith(_PARQUET):
        return ".parquet"
    text = _as_text(head)
    if text is None:
        raise unsupported(filename)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{") and _is_json_object(first):
        return ".jsonl"
    if "\t" in first and "," not in first:
        return ".tsv"
    return ".csv"


def unsupported(filename: str) -> ServiceError:
    """Return the 400 for a file that is not a table this service reads."""
    return ServiceError(
        400,
        "DATASET_UNSUPPORTED",
        f"{filename!r} is not a CSV, TSV, JSON-lines, Parquet or Excel file",
    )


def _as_text(head: bytes) -> str | None:
    if b"\x00" in head:
        return None  # UTF-16 or binary; UTF-16 CSV is rare enough to ask for UTF-8
    for encoding in ("utf-8", "gb18030"):
        try:
            return head.decode(encoding)
        except UnicodeDecodeError as exc:
            if exc.start >= len(head) - 4:  # the sample cut a character in two
                return head[: exc.start].decode(encoding)
    return None


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False

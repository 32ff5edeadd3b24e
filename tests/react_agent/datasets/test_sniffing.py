"""An upload's kind comes from its first bytes, not from the name it was sent under."""

from __future__ import annotations

import pytest

from react_agent.datasets.sniffing import sniff_suffix
from react_agent.errors import ServiceError


@pytest.mark.parametrize(
    ("head", "filename", "suffix"),
    [
        (b"PK\x03\x04rest-of-a-zip", "report.xlsx", ".xlsx"),
        (b"PK\x03\x04rest-of-a-zip", "sheet.ods", ".ods"),
        (b"PK\x03\x04rest-of-a-zip", "named-wrongly.csv", ".xlsx"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1old", "old.xls", ".xls"),
        (b"PAR1\x15\x04", "data.bin", ".parquet"),
        (b'{"id": 1, "kind": "a"}\n{"id": 2}\n', "events.txt", ".jsonl"),
        (b"a\tb\n1\t2\n", "pairs.csv", ".tsv"),
        ("地区,销售额\n华东,1\n".encode("gbk"), "销售.csv", ".csv"),
        ("名称,备注\n苹果,有逗号\t和制表符\n".encode(), "x.tsv", ".csv"),
        (b"[1, 2, 3]\n", "array.json", ".csv"),
    ],
)
def test_the_kind_is_read_from_the_bytes(head: bytes, filename: str, suffix: str):
    assert sniff_suffix(head, filename) == suffix


@pytest.mark.parametrize(
    "head",
    [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"\x7fELF\x02\x01\x01\x00", "a,b\n".encode("utf-16")],
)
def test_what_is_not_a_table_is_refused(head: bytes):
    with pytest.raises(ServiceError) as refused:
        sniff_suffix(head, "upload.csv")
    assert refused.value.status == 400 and refused.value.error_type == "DATASET_UNSUPPORTED"

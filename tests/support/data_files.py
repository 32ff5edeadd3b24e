"""Folders of data files for the DuckDB backend's tests: GBK and UTF-8 CSV, Excel, more."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import openpyxl

from react_agent.sample_data.export_files import write_sample_folder

__all__ = ["GBK_CSV", "make_data_folder", "write_excel", "write_sample_folder"]

GBK_CSV = "地区,销售额,日期\n华东,100.5,2024-01-02\n华南,200,2024-01-03\n华东,50,2024-02-01\n"


def write_excel(path: Path) -> None:
    """Write a workbook of two sheets with Chinese headers, numbers and dates."""
    workbook = openpyxl.Workbook()
    summary = workbook.active
    summary.title = "汇总"
    summary.append(["产品", "数量", "日期"])
    summary.append(["苹果", 3, dt.date(2024, 5, 1)])
    summary.append(["香蕉", 5, dt.date(2024, 5, 2)])
    details = workbook.create_sheet("明细")
    details.append(["编号", "备注"])
    details.append([1, "好"])
    workbook.save(path)


def make_data_folder(folder: Path) -> Path:
    """Fill `folder` with one file of each kind the backend reads; return it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "销售.csv").write_bytes(GBK_CSV.encode("gbk"))
    (folder / "people.csv").write_text("name,age,joined\nAnn,31,2023-04-05\nBo,42,2022-01-30\n")
    (folder / "pairs.tsv").write_text("a\tb\n1\t2\n3\t4\n")
    (folder / "events.jsonl").write_text('{"id": 1, "kind": "a"}\n{"id": 2, "kind": "b"}\n')
    with duckdb.connect() as connection:
        target = str(folder / "numbers.parquet").replace("'", "''")
        connection.execute(f"COPY (SELECT range AS n FROM range(5)) TO '{target}' (FORMAT parquet)")
    write_excel(folder / "报表.xlsx")
    (folder / "notes.md").write_text("not data")
    return folder

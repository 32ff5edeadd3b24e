"""Datasets over real HTTP: upload, list, ask with dataset_id, export, delete; each user's own."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pydantic import SecretStr

from config import Settings
from tests.app.exports.test_exports import EXPORT, parse_csv, result_ids
from tests.support.data_files import GBK_CSV, write_excel
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

DATASETS = "/api/v0/datasets"
ALICE_KEY = "alice-dataset-key"


@pytest.fixture
def dataset_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"datasets_enabled": True, "datasets_max_upload_bytes": 100_000}
    )


def upload(name: str, content: bytes) -> dict:
    """Return httpx's multipart `files` for one upload."""
    return {"file": (name, io.BytesIO(content), "application/octet-stream")}


async def test_a_gbk_csv_and_an_excel_file_are_uploaded_asked_about_and_deleted(
    dataset_settings: Settings, tmp_path: Path
):
    excel = tmp_path / "报表.xlsx"
    write_excel(excel)
    model = ScriptedChatModel()
    async with running_service(dataset_settings, model=model) as service:
        http = service.http
        sales = await http.post(
            DATASETS, params={"user_id": "wang"}, files=upload("销售.csv", GBK_CSV.encode("gbk"))
        )
        report = await http.post(
            DATASETS, data={"user_id": "wang"}, files=upload("报表.xlsx", excel.read_bytes())
        )
        assert sales.status_code == 200, sales.text
        assert report.status_code == 200, report.text
        sales_id = sales.json()["data"]["dataset_id"]
        report_id = report.json()["data"]["dataset_id"]

        listed = (await http.get(DATASETS, params={"user_id": "wang"})).json()["data"]
        others = (await http.get(DATASETS, params={"user_id": "li"})).json()["data"]

        sql = "SELECT 地区, sum(销售额) AS 合计 FROM 销售 GROUP BY 地区 ORDER BY 地区"
        model.replies = [call_tool("list_tables"), call_tool("run_sql", sql=sql), answer("华东")]
        status, body = await service.ask(question="各地区合计", user_id="wang", dataset_id=sales_id)
        tables_seen = model.seen[1][-1].content
        thread_id = body["data"]["conversation_id"]
        (result_id,) = await result_ids(service, thread_id)
        export = await http.get(
            EXPORT.format(thread_id, result_id), params={"user_id": "wang", "dataset_id": sales_id}
        )

        sheet_sql = 'SELECT 产品 FROM "报表_汇总" ORDER BY 数量 DESC'
        model.replies.extend([call_tool("run_sql", sql=sheet_sql), answer("香蕉")])
        status_2, body_2 = await service.ask(
            question="卖得最多?", user_id="wang", dataset_id=report_id
        )

        # The service's own database answers questions that name no dataset.
        model.replies.extend(
            [call_tool("run_sql", sql="SELECT count(*) AS n FROM orders"), answer("4000")]
        )
        status_3, body_3 = await service.ask(question="订单数", user_id="wang")

        stolen_status, stolen = await service.ask(question="x", user_id="li", dataset_id=sales_id)
        deleted = await http.delete(f"{DATASETS}/{sales_id}", params={"user_id": "wang"})
        again = await http.delete(f"{DATASETS}/{sales_id}", params={"user_id": "wang"})
        after_status, _ = await service.ask(question="x", user_id="wang", dataset_id=sales_id)

    data = sales.json()["data"]
    assert data["name"] == "销售.csv" and data["size_bytes"] == len(GBK_CSV.encode("gbk"))
    assert data["tables"] == [
        {"name": "销售", "columns": ["地区", "销售额", "日期"], "row_count": 3}
    ]
    assert [t["name"] for t in report.json()["data"]["tables"]] == ["报表_明细", "报表_汇总"]
    assert {d["dataset_id"] for d in listed["datasets"]} == {sales_id, report_id}
    assert len(listed["datasets"]) == 2 and others["datasets"] == []

    assert status == 200, body
    assert "销售 (3 rows)" in tables_seen and "orders" not in tables_seen
    assert body["data"]["records"]["rows"] == [
        {"地区": "华东", "合计": 150.5},
        {"地区": "华南", "合计": 200.0},
    ]
    assert parse_csv(export.content) == [["地区", "合计"], ["华东", "150.5"], ["华南", "200.0"]]
    assert status_2 == 200 and body_2["data"]["records"]["rows"][0] == {"产品": "香蕉"}
    assert status_3 == 200 and body_3["data"]["records"]["rows"] == [{"n": 4000}]

    assert stolen_status == 404 and stolen["data"]["error_type"] == "DATASET_NOT_FOUND"
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted"] is True
    assert again.status_code == 404 and after_status == 404


async def test_uploads_that_are_too_large_or_not_tables_are_refused(dataset_settings: Settings):
    async with running_service(dataset_settings, model=ScriptedChatModel()) as service:
        too_large = await service.http.post(
            DATASETS,
            params={"user_id": "wang"},
            files=upload("big.csv", b"a,b\n" + b"1,2\n" * 40_000),
        )
        image = await service.http.post(
            DATASETS,
            params={"user_id": "wang"},
            files=upload("x.csv", b"\x89PNG\r\n\x1a\n\x00\x00"),
        )
        no_file = await service.http.post(DATASETS, params={"user_id": "wang"}, data={"x": "1"})
        listed = await service.http.get(DATASETS, params={"user_id": "wang"})

    assert too_large.status_code == 413
    assert too_large.json()["data"]["error_type"] == "PAYLOAD_TOO_LARGE"
    assert image.status_code == 400 and image.json()["data"]["error_type"] == "DATASET_UNSUPPORTED"
    assert no_file.status_code == 400
    assert listed.json()["data"]["datasets"] == []


async def test_datasets_are_off_by_default(settings: Settings):
    async with running_service(settings, model=ScriptedChatModel()) as service:
        listed = await service.http.get(DATASETS, params={"user_id": "wang"})
        status, body = await service.ask(
            question="x", user_id="wang", dataset_id="0123456789abcdef"
        )
    assert listed.status_code == 404 and listed.json()["data"]["error_type"] == "DATASETS_DISABLED"
    assert status == 404 and body["data"]["error_type"] == "DATASETS_DISABLED"


async def test_an_api_key_reaches_only_its_users_datasets(dataset_settings: Settings):
    keyed = dataset_settings.model_copy(update={"api_keys": SecretStr(f"{ALICE_KEY}=alice")})
    headers = {"Authorization": f"Bearer {ALICE_KEY}"}
    async with running_service(keyed, model=ScriptedChatModel()) as service:
        own = await service.http.get(DATASETS, params={"user_id": "alice"}, headers=headers)
        other = await service.http.get(DATASETS, params={"user_id": "bob"}, headers=headers)
        upload_other = await service.http.post(
            DATASETS, data={"user_id": "bob"}, files=upload("a.csv", b"a\n1\n"), headers=headers
        )
    assert own.status_code == 200
    assert other.status_code == 403 and upload_other.status_code == 403

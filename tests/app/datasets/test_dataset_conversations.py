"""An uploaded dataset kept by its conversation: follow-ups, resume, export, every surface."""

from __future__ import annotations

import io

import pytest

from config import Settings
from react_agent.sample_data import SAMPLE_DATABASE_URL
from tests.app.exports.test_exports import EXPORT, parse_csv, result_ids
from tests.react_agent.databases.test_named_sources import oracle
from tests.support.data_files import GBK_CSV
from tests.support.live_server import running_service
from tests.support.mcp_client import http_session
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

DATASETS = "/api/v0/datasets"
ON_FILE = "SELECT 地区, sum(销售额) AS 合计 FROM 销售 GROUP BY 地区 ORDER BY 地区"
ON_FILE_ROWS = [{"地区": "华东", "合计": 150.5}, {"地区": "华南", "合计": 200.0}]


@pytest.fixture
def dataset_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"datasets_enabled": True})


async def upload_sales(service, user_id: str = "wang") -> str:
    files = {"file": ("销售.csv", io.BytesIO(GBK_CSV.encode("gbk")), "text/csv")}
    response = await service.http.post(DATASETS, params={"user_id": user_id}, files=files)
    assert response.status_code == 200, response.text
    return response.json()["data"]["dataset_id"]


def last_tool_result(model: ScriptedChatModel) -> str:
    return str(model.seen[-1][-1].content)


async def test_a_conversation_keeps_its_dataset_for_follow_ups_and_exports(
    dataset_settings: Settings,
):
    model = ScriptedChatModel()
    async with running_service(dataset_settings, model=model) as service:
        dataset_id = await upload_sales(service)
        model.replies = [call_tool("run_sql", sql=ON_FILE), answer("华南")]
        status, body = await service.ask(question="合计", user_id="wang", dataset_id=dataset_id)
        thread_id = body["data"]["conversation_id"]
        # A follow-up (or the page reloaded and asking again) names no dataset.
        model.replies += [call_tool("run_sql", sql=ON_FILE + " DESC"), answer("华东")]
        status_2, body_2 = await service.ask(
            question="倒序", user_id="wang", conversation_id=thread_id
        )
        first, second = await result_ids(service, thread_id)
        export = await service.http.get(
            EXPORT.format(thread_id, second), params={"user_id": "wang"}
        )
        # A new conversation without a dataset reads the shared database, not the file.
        model.replies += [
            call_tool("run_sql", sql="SELECT count(*) AS n FROM orders"),
            answer("4000"),
        ]
        status_3, body_3 = await service.ask(question="订单数", user_id="wang")
        listed = (await service.http.get(DATASETS, params={"user_id": "wang"})).json()["data"]
        deleted = await service.http.delete(f"{DATASETS}/{dataset_id}", params={"user_id": "wang"})
        # Once deleted, the conversation asks about the shared data again.
        model.replies += [
            call_tool("run_sql", sql="SELECT count(*) AS n FROM orders"),
            answer("4000"),
        ]
        status_4, body_4 = await service.ask(
            question="订单数", user_id="wang", conversation_id=thread_id
        )

    assert status == 200 and body["data"]["records"]["rows"] == ON_FILE_ROWS
    assert status_2 == 200, body_2
    assert body_2["data"]["records"]["rows"] == ON_FILE_ROWS[::-1]
    assert first != second and export.status_code == 200, export.text
    assert parse_csv(export.content) == [["地区", "合计"], ["华南", "200.0"], ["华东", "150.5"]]
    assert status_3 == 200 and body_3["data"]["records"]["rows"] == [{"n": 4000}]
    assert [d["dataset_id"] for d in listed["datasets"]] == [dataset_id]
    assert deleted.status_code == 200
    assert status_4 == 200 and body_4["data"]["records"]["rows"] == [{"n": 4000}]


async def test_an_approval_resume_runs_on_the_conversations_dataset(dataset_settings: Settings):
    model = ScriptedChatModel()
    async with running_service(dataset_settings, model=model) as service:
        dataset_id = await upload_sales(service)
        model.replies = [call_tool("run_sql", sql=ON_FILE), answer("华南")]
        status, body = await service.ask(
            question="合计", user_id="wang", dataset_id=dataset_id, approve_sql=True
        )
        thread_id = body["data"]["conversation_id"]
        interrupt_id = body["data"]["interrupt_id"]
        status_2, body_2 = await service.ask(
            user_id="wang",
            thread_id=thread_id,
            resume={"interrupt_id": interrupt_id, "action": "approve"},
        )
    assert status == 200 and body["data"]["status"] == "awaiting_approval", body
    assert status_2 == 200, body_2
    assert body_2["data"]["records"]["rows"] == ON_FILE_ROWS


async def test_the_openai_route_and_mcp_ask_about_a_dataset(dataset_settings: Settings):
    model = ScriptedChatModel()
    async with running_service(dataset_settings, model=model) as service:
        dataset_id = await upload_sales(service, "zhao")
        model.replies = [call_tool("run_sql", sql=ON_FILE), answer("华南")]
        chat = await service.http.post(
            "/v1/chat/completions",
            json={
                "model": "sql-react-agent",
                "user": "zhao",
                "messages": [{"role": "user", "content": "合计"}],
                "metadata": {"dataset_id": dataset_id},
            },
        )
        seen_by_openai = last_tool_result(model)
        model.replies += [call_tool("run_sql", sql=ON_FILE), answer("华南")]
        async with http_session(service.base_url) as session:
            result = await session.call_tool(
                "ask_data", {"question": "合计", "user_id": "zhao", "dataset_id": dataset_id}
            )
        seen_by_mcp = last_tool_result(model)
    assert chat.status_code == 200, chat.text
    assert "150.5" in seen_by_openai and "华南" in seen_by_openai
    assert not result.is_error, result.content
    data = result.structured_content
    assert "150.5" in seen_by_mcp and data["conversation_id"].startswith("zhao:")


async def test_a_dataset_joins_the_named_sources_as_mine(settings: Settings):
    joined = settings.model_copy(
        update={
            "datasets_enabled": True,
            "data_sources": f"shop={SAMPLE_DATABASE_URL}",
        }
    )
    sql = (
        "SELECT m.地区, count(DISTINCT s.store_id) AS 门店, sum(m.销售额) AS 销售额 "
        "FROM mine.销售 m JOIN shop.regions r ON r.region_name = m.地区 "
        "JOIN shop.stores s ON s.region_id = r.region_id GROUP BY m.地区 ORDER BY m.地区"
    )
    model = ScriptedChatModel()
    async with running_service(joined, model=model) as service:
        dataset_id = await upload_sales(service)
        model.replies = [call_tool("list_tables"), call_tool("run_sql", sql=sql), answer("好")]
        status, body = await service.ask(question="x", user_id="wang", dataset_id=dataset_id)
        listed = str(model.seen[1][-1].content)
        thread_id = body["data"]["conversation_id"]
        (result_id,) = await result_ids(service, thread_id)
        export = await service.http.get(
            EXPORT.format(thread_id, result_id), params={"user_id": "wang"}
        )
    stores = dict(
        oracle(
            "SELECT r.region_name, count(*) FROM stores s JOIN regions r USING (region_id) "
            "GROUP BY 1"
        )
    )
    assert status == 200, body
    assert "mine.销售" in listed and "shop.orders" in listed
    rows = body["data"]["records"]["rows"]
    assert [(r["地区"], r["门店"], float(r["销售额"])) for r in rows] == [
        # Each of the file's rows meets every store of its region: the sums repeat.
        ("华东", stores["华东"], 150.5 * stores["华东"]),
        ("华南", stores["华南"], 200.0 * stores["华南"]),
    ]
    assert export.status_code == 200, export.text
    assert len(parse_csv(export.content)) == 3


def csv_upload(text: str, name: str = "more.csv") -> dict:
    return {"file": (name, io.BytesIO(text.encode()), "text/csv")}


async def test_a_dataset_appended_to_and_replaced_keeps_its_conversation_and_examples(
    dataset_settings: Settings,
):
    model = ScriptedChatModel()
    async with running_service(dataset_settings, model=model) as service:
        dataset_id = await upload_sales(service)
        model.replies = [call_tool("run_sql", sql=ON_FILE), answer("华南")]
        _, body = await service.ask(question="合计", user_id="wang", dataset_id=dataset_id)
        thread_id = body["data"]["conversation_id"]
        put = f"{DATASETS}/{dataset_id}"
        appended = await service.http.put(
            put,
            params={"user_id": "wang", "mode": "append"},
            files=csv_upload("地区,销售额,日期\n华北,70,2024-03-01\n"),
        )
        model.replies += [call_tool("run_sql", sql=ON_FILE), answer("三个地区")]
        _, after_append = await service.ask(
            question="再算", user_id="wang", conversation_id=thread_id
        )
        dropped = await service.http.put(
            put, params={"user_id": "wang"}, files=csv_upload("地区,销售额\n华东,1\n")
        )
        wrong_header = await service.http.put(
            put,
            params={"user_id": "wang", "mode": "append"},
            files=csv_upload("a,b,c\n1,2,3\n"),
        )
        replaced = await service.http.put(
            put,
            params={"user_id": "wang"},
            files=csv_upload("地区,销售额,日期,备注\n西南,9,2024-04-01,新\n", "new.csv"),
        )
        model.replies += [call_tool("run_sql", sql=ON_FILE), answer("西南")]
        _, after_replace = await service.ask(
            question="再算", user_id="wang", conversation_id=thread_id
        )
        others = await service.http.put(
            put, params={"user_id": "li"}, files=csv_upload("地区,销售额,日期\n")
        )

    assert appended.status_code == 200, appended.text
    assert appended.json()["data"]["tables"][0]["row_count"] == 4
    # 华东 < 华北 < 华南 by code point, as DuckDB orders them.
    assert after_append["data"]["records"]["rows"] == [
        ON_FILE_ROWS[0],
        {"地区": "华北", "合计": 70.0},
        ON_FILE_ROWS[1],
    ]
    for refused in (dropped, wrong_header):
        assert refused.status_code == 409, refused.text
        assert refused.json()["data"]["error_type"] == "DATASET_INCOMPATIBLE"
    assert replaced.status_code == 200, replaced.text
    data = replaced.json()["data"]
    assert data["dataset_id"] == dataset_id and data["tables"][0]["name"] == "销售"
    assert after_replace["data"]["records"]["rows"] == [{"地区": "西南", "合计": 9.0}]
    assert others.status_code == 404

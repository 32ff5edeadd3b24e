"""The business-instruction endpoints (admin keys) and an answer citing what they added."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import answer, prompt_text

SAMPLE = Path(__file__).resolve().parents[2] / "config" / "semantic.sample.yaml"
ADMIN = {"Authorization": "Bearer admin-key-0123456789"}
WANG = {"Authorization": "Bearer wang-key-0123456789"}
FISCAL = {"id": "fiscal_year", "text": "财年从4月1日开始", "valid_from": "2024-04-01"}


@pytest.fixture
async def keyed(settings, model, tmp_path: Path) -> AsyncIterator[tuple[ServiceClient, Path]]:
    semantic = tmp_path / "semantic.yaml"
    semantic.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    keys = "admin-key-0123456789; wang-key-0123456789=wang"
    configured = settings.model_copy(
        update={
            "api_keys": SecretStr(keys),
            "semantic_file": semantic,
            "schema_prompt_budget": 12_000,
        }
    )
    async with running_service(configured, model=model) as client:
        # The catalogue built before the first edit (else 503 SCHEMA_BUILDING).
        assert (await client.http.post("/api/v0/schema/refresh", headers=ADMIN)).is_success
        yield client, semantic


async def test_an_admin_adds_lists_and_edits_instructions_that_reach_the_answer(keyed, model):
    client, semantic = keyed
    added = await client.http.post("/api/v0/instructions", json=FISCAL, headers=ADMIN)
    assert added.status_code == 200, added.text
    assert added.json()["data"] == {**FISCAL, "tables": [], "in_force": True}
    stores = {"id": "test_stores", "text": "排除 store_id > 9000", "tables": ["stores"]}
    assert (await client.http.post("/api/v0/instructions", json=stores, headers=ADMIN)).is_success
    edited = await client.http.put(
        "/api/v0/instructions/test_stores",
        json={"text": "排除测试门店 store_id > 9000", "tables": ["stores"]},
        headers=ADMIN,
    )
    assert edited.status_code == 200, edited.text
    listed = (await client.http.get("/api/v0/instructions", headers=ADMIN)).json()["data"]
    assert [(r["id"], r["text"]) for r in listed["instructions"]] == [
        ("fiscal_year", "财年从4月1日开始"),
        ("test_stores", "排除测试门店 store_id > 9000"),
    ]
    text = semantic.read_text(encoding="utf-8")
    assert text.startswith("# The semantic file of the sample")  # the comments stay
    assert "test_stores" in text and "华东: [East China, 华东区]" in text

    model.replies = [answer("好的")]
    asked = await client.http.post(
        "/api/v0/ask_react_agent", json={"question": "本财年销售额"}, headers=WANG
    )
    assert asked.status_code == 200, asked.text
    assert asked.json()["data"]["react_agent_meta"]["instructions"] == [
        "fiscal_year",
        "test_stores",
    ]
    prompt = prompt_text(model.seen[0])
    assert "- [test_stores] 排除测试门店 store_id > 9000 (tables: stores)" in prompt


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "error_type"),
    [
        ("post", "/api/v0/instructions", FISCAL, 409, "INSTRUCTION_EXISTS"),
        ("put", "/api/v0/instructions/nope", {"text": "x"}, 404, "INSTRUCTION_NOT_FOUND"),
        ("post", "/api/v0/instructions", {"id": "a", "text": ""}, 400, "INSTRUCTION_INVALID"),
        (
            "post",
            "/api/v0/instructions",
            {"id": "b", "text": "x", "tables": ["no_such_table"]},
            400,
            "INSTRUCTION_INVALID",
        ),
        (
            "post",
            "/api/v0/instructions",
            {"id": "c", "text": "x", "valid_from": "2025-02-30"},
            400,
            "INSTRUCTION_INVALID",
        ),
        (
            "post",
            "/api/v0/instructions",
            {"id": "d", "text": "x", "valid_from": "2025-05-01", "valid_to": "2025-04-01"},
            400,
            "INSTRUCTION_INVALID",
        ),
    ],
)
async def test_refusals_leave_the_file_as_it_was(keyed, method, path, body, status, error_type):
    client, semantic = keyed
    assert (await client.http.post("/api/v0/instructions", json=FISCAL, headers=ADMIN)).is_success
    before = semantic.read_text(encoding="utf-8")
    response = await client.http.request(method, path, json=body, headers=ADMIN)
    assert response.status_code == status, response.text
    assert response.json()["data"]["error_type"] == error_type
    assert semantic.read_text(encoding="utf-8") == before


async def test_a_key_bound_to_a_user_may_not_read_or_edit_them(keyed):
    client, _ = keyed
    listed = await client.http.get("/api/v0/instructions", headers=WANG)
    added = await client.http.post("/api/v0/instructions", json=FISCAL, headers=WANG)
    assert listed.status_code == 403 and added.status_code == 403

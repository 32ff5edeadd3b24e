"""What the page needs of the conversation endpoints: turns, rename, delete, search, whoami."""

from __future__ import annotations

from pydantic import SecretStr

from config import Settings
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

CONVERSATIONS = "/api/v0/react/conversations/{}"
USER_CONVERSATIONS = "/api/v0/react/users/{}/conversations"
REGIONS_SQL = "SELECT region_name FROM regions ORDER BY region_name"


async def test_detail_has_one_turn_per_question_with_its_own_sql_records_and_chart(service, model):
    model.replies = [
        call_tool("run_sql", sql=REGIONS_SQL),
        answer("**7** regions"),
        answer("no SQL this time"),
    ]
    _, body = await service.ask(question="regions?", user_id="tu")
    thread_id = body["data"]["conversation_id"]
    await service.ask(question="and then?", thread_id=thread_id)

    response = await service.http.get(CONVERSATIONS.format(thread_id))

    turns = response.json()["data"]["turns"]
    assert [t["question"] for t in turns] == ["regions?", "and then?"]
    assert turns[0]["answer"] == "**7** regions" and turns[0]["sql"] == REGIONS_SQL
    assert turns[0]["records"]["columns"] == ["region_name"]
    assert turns[0]["records"]["total_row_count"] == len(turns[0]["records"]["rows"]) > 1
    assert turns[0]["sqls"][0]["status"] == "ok" and turns[0]["result_id"]
    assert turns[1]["answer"] == "no SQL this time"
    assert turns[1]["sql"] is None and turns[1]["records"] is None and turns[1]["chart"] is None


async def test_rename_search_and_delete_a_conversation(service, model):
    model.default = answer("ok")
    _, first = await service.ask(question="sales by region", user_id="ed")
    _, second = await service.ask(question="stores per city", user_id="ed")
    first_id = first["data"]["conversation_id"]
    second_id = second["data"]["conversation_id"]

    renamed = await service.http.patch(CONVERSATIONS.format(first_id), json={"title": "  My  one "})
    found = await service.http.get(USER_CONVERSATIONS.format("ed"), params={"q": "CITY"})
    by_title = await service.http.get(USER_CONVERSATIONS.format("ed"), params={"q": "my one"})
    deleted = await service.http.delete(CONVERSATIONS.format(second_id))
    gone = await service.http.get(CONVERSATIONS.format(second_id))
    listed = await service.http.get(USER_CONVERSATIONS.format("ed"))
    too_long = await service.http.patch(CONVERSATIONS.format(first_id), json={"title": "x" * 101})

    assert renamed.status_code == 200 and renamed.json()["data"]["title"] == "My one"
    assert [c["thread_id"] for c in found.json()["data"]["conversations"]] == [second_id]
    assert [c["thread_id"] for c in by_title.json()["data"]["conversations"]] == [first_id]
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted"] is True
    assert gone.status_code == 404
    assert [c["title"] for c in listed.json()["data"]["conversations"]] == ["My one"]
    assert too_long.status_code == 400 and too_long.json()["data"]["error_type"] == "INVALID_TITLE"


async def test_another_users_conversation_cannot_be_renamed_or_deleted(service, model):
    model.default = answer("ok")
    _, body = await service.ask(question="mine", user_id="own")
    thread_id = body["data"]["conversation_id"]

    rename = await service.http.patch(
        CONVERSATIONS.format(thread_id), json={"title": "x", "user_id": "other"}
    )
    delete = await service.http.delete(CONVERSATIONS.format(thread_id), params={"user_id": "other"})

    assert rename.status_code == 400 and delete.status_code == 400
    assert (await service.http.get(CONVERSATIONS.format(thread_id))).status_code == 200


async def test_whoami_names_a_keys_one_bound_user(settings: Settings) -> None:
    keyed = settings.model_copy(update={"api_keys": SecretStr("k1;k2=alice;k3=bob,carol")})
    async with running_service(keyed, model=ScriptedChatModel()) as service:
        answers = {
            key: (await service.http.get("/api/v0/whoami", headers=headers)).json()
            for key, headers in {
                "none": {},
                "k1": {"Authorization": "Bearer k1"},
                "k2": {"Authorization": "Bearer k2"},
                "k3": {"Authorization": "Bearer k3"},
            }.items()
        }
    assert answers["none"]["code"] == 401
    assert answers["k1"]["data"] == {
        "keys_required": True,
        "user_id": None,
        "users": None,
        "datasets": False,
    }
    assert answers["k2"]["data"]["user_id"] == "alice"
    assert answers["k3"]["data"]["users"] == ["bob", "carol"]
    assert answers["k3"]["data"]["user_id"] is None

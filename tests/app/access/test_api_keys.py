"""API keys on every route: missing, wrong, right, and bound to another user."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from app.http.auth import ACCESS_LOG_REDACTION, parse_api_keys
from tests.app.mcp.test_mcp_server import http_session
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer

OPEN_KEY = "open-key-0123456789"
ALICE_KEY = "alice-key-0123456789"
ALICE_THREAD = "alice:20250101000000000"
BOB_THREAD = "bob:20250101000000000"

Request = dict[str, Any]


def ask_body(user: str) -> Request:
    return {"json": {"question": "q", "user_id": user}}


ROUTE_REQUESTS: dict[tuple[str, str], Callable[[str], Request] | None] = {
    # (method, OpenAPI path) -> the request that route gets on behalf of `user`; None for
    # routes that name no user (a bound key may call them, an unknown key may not).
    ("POST", "/api/v0/ask_react_agent"): ask_body,
    ("POST", "/api/v0/ask_react_agent_stream"): ask_body,
    ("GET", "/api/v0/ask_react_agent_stream"): lambda user: {
        "params": {"question": "q", "user_id": user}
    },
    ("GET", "/api/v0/react/users/{user_id}/conversations"): lambda user: {
        "path": f"/api/v0/react/users/{user}/conversations"
    },
    ("GET", "/api/v0/react/conversations/{thread_id}"): lambda user: {
        "path": f"/api/v0/react/conversations/{user}:20250101000000000",
        "params": {"user_id": user},
    },
    ("GET", "/api/v0/react/status/{thread_id}"): lambda user: {
        "path": f"/api/v0/react/status/{user}:20250101000000000",
        "params": {"user_id": user},
    },
    ("POST", "/v1/chat/completions"): lambda user: {
        "json": {"messages": [{"role": "user", "content": "q"}], "user": user}
    },
    ("PATCH", "/api/v0/react/conversations/{thread_id}"): lambda user: {
        "path": f"/api/v0/react/conversations/{user}:20250101000000000",
        "json": {"title": "t"},
    },
    ("DELETE", "/api/v0/react/conversations/{thread_id}"): lambda user: {
        "path": f"/api/v0/react/conversations/{user}:20250101000000000",
        "params": {"user_id": user},
    },
    ("GET", "/api/v0/whoami"): None,
    ("GET", "/v1/models"): None,
    ("GET", "/health"): None,
    ("GET", "/ready"): None,
    ("GET", "/api/v0/ready"): None,
    ("POST", "/api/chat"): ask_body,
    ("GET", "/api/v0/ask_react_agent_stream_sync"): lambda user: {
        "params": {"question": "q", "user_id": user}
    },
    ("GET", "/api/v0/react/users/{user_id}/conversations/{thread_id}"): lambda user: {
        "path": f"/api/v0/react/users/{user}/conversations/{user}:20250101000000000"
    },
    ("GET", "/api/v0/react/conversations/{thread_id}/results/{result_id}.csv"): lambda user: {
        "path": f"/api/v0/react/conversations/{user}:20250101000000000/results/call_1.csv",
        "params": {"user_id": user},
    },
    ("POST", "/api/v0/qa_feedback/add"): lambda user: {
        "json": {"question": "q", "sql": "SELECT 1", "is_thumb_up": True, "user_id": user}
    },
    ("POST", "/api/v0/qa_feedback/query"): lambda user: {"json": {"user_id": user}},
    ("PUT", "/api/v0/qa_feedback/update/{feedback_id}"): lambda user: {
        "path": "/api/v0/qa_feedback/update/999999",
        "params": {"user_id": user},
        "json": {"is_thumb_up": False},
    },
    ("DELETE", "/api/v0/qa_feedback/delete/{feedback_id}"): lambda user: {
        "path": "/api/v0/qa_feedback/delete/999999",
        "params": {"user_id": user},
    },
    ("GET", "/api/v0/qa_feedback/stats"): None,
    ("POST", "/api/v0/qa_feedback/add_to_training"): lambda user: {
        "json": {"feedback_ids": [999999]}
    },
    ("POST", "/api/v0/training_data/create"): lambda user: {
        "json": {"data": {"training_data_type": "documentation", "content": "GMV excludes refunds"}}
    },
    ("POST", "/api/v0/training_data/query"): lambda user: {"json": {}},
    ("POST", "/api/v0/training_data/update"): lambda user: {
        "json": {"id": "nope", "training_data_type": "documentation", "content": "x"}
    },
    ("POST", "/api/v0/training_data/delete"): lambda user: {
        "json": {"ids": ["nope"], "confirm": True}
    },
    ("GET", "/api/v0/training_data/stats"): None,
    ("POST", "/api/v0/datasets"): lambda user: {
        "data": {"user_id": user},
        "files": {"file": ("a.csv", b"a,b\n1,2\n", "text/csv")},
    },
    ("GET", "/api/v0/datasets"): lambda user: {"params": {"user_id": user}},
    ("DELETE", "/api/v0/datasets/{dataset_id}"): lambda user: {
        "path": "/api/v0/datasets/0123456789abcdef",
        "params": {"user_id": user},
    },
    ("PUT", "/api/v0/datasets/{dataset_id}"): lambda user: {
        "path": "/api/v0/datasets/0123456789abcdef",
        "data": {"user_id": user},
        "files": {"file": ("a.csv", b"a,b\n1,2\n", "text/csv")},
    },
    ("POST", "/api/v0/react/runs/{run_id}/cancel"): lambda user: {
        "path": "/api/v0/react/runs/0123456789abcdef0123456789abcdef/cancel",
        "json": {"user_id": user},
    },
    ("GET", "/api/v0/suggestions"): None,
    ("GET", "/api/v0/audit"): None,
    ("GET", "/api/v0/usage"): lambda user: {"params": {"user_id": user}},
    ("GET", "/api/v0/schema"): None,
    ("POST", "/api/v0/schema/refresh"): None,
    ("GET", "/api/v0/instructions"): None,
    ("POST", "/api/v0/instructions"): lambda user: {"json": {"id": "a", "text": "x"}},
    ("PUT", "/api/v0/instructions/{ident}"): lambda user: {
        "path": "/api/v0/instructions/a",
        "json": {"text": "x"},
    },
}
OPEN_ROUTES = {("GET", "/health"), ("GET", "/ready"), ("GET", "/api/v0/ready")}
ADMIN_ROUTES = {
    ("GET", "/api/v0/qa_feedback/stats"),
    ("POST", "/api/v0/qa_feedback/add_to_training"),
    ("GET", "/api/v0/audit"),
    *((method, path) for method, path in ROUTE_REQUESTS if "/training_data/" in path),
    ("POST", "/api/v0/schema/refresh"),
    *((method, path) for method, path in ROUTE_REQUESTS if "/instructions" in path),
}
"""Routes that change or read every user's data: a key bound to users gets 403 there."""
USER_ROUTES = {route for route in ROUTE_REQUESTS if route not in ADMIN_ROUTES}


@pytest.fixture
async def keyed(settings) -> AsyncIterator[ServiceClient]:
    keyed_settings = settings.model_copy(
        update={"api_keys": SecretStr(f"{OPEN_KEY}; {ALICE_KEY}=alice")}
    )
    model = ScriptedChatModel(default=answer("ok"))
    async with running_service(keyed_settings, model=model) as client:
        yield client


async def documented_routes(service: ServiceClient) -> set[tuple[str, str]]:
    spec = (await service.http.get("/openapi.json", headers=bearer(OPEN_KEY))).json()
    return {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def send(
    service: ServiceClient, route: tuple[str, str], user: str, headers: dict[str, str]
) -> httpx.Response:
    method, path = route
    build = ROUTE_REQUESTS[route]
    request = build(user) if build else {}
    return await service.http.request(
        method,
        request.pop("path", path),
        headers=headers,
        **request,
    )


def error_type(response: httpx.Response) -> str:
    body = response.json()
    if "error" in body and isinstance(body["error"], dict):
        return body["error"]["code"].upper()  # the OpenAI format
    return body["data"]["error_type"]


async def test_every_documented_route_is_in_the_table(keyed):
    assert await documented_routes(keyed) == set(ROUTE_REQUESTS)


@pytest.mark.parametrize("route", sorted(set(ROUTE_REQUESTS) - OPEN_ROUTES))
async def test_a_route_without_a_key_or_with_a_wrong_one_is_401(keyed, route):
    for headers in ({}, bearer("wrong-key"), {"Authorization": f"Basic {OPEN_KEY}"}):
        response = await send(keyed, route, "alice", headers)
        assert response.status_code == 401, (route, headers, response.text)
        assert error_type(response) == "UNAUTHORIZED"
        assert OPEN_KEY not in response.text


@pytest.mark.parametrize("route", sorted(ROUTE_REQUESTS))
async def test_a_route_with_the_right_key_is_served(keyed, route):
    for key in (OPEN_KEY,) if route in ADMIN_ROUTES else (OPEN_KEY, ALICE_KEY):
        response = await send(keyed, route, "alice", bearer(key))
        assert response.status_code not in (401, 403), (route, key, response.text)
        assert response.status_code < 500, response.text


@pytest.mark.parametrize("route", sorted(ADMIN_ROUTES))
async def test_a_key_bound_to_users_is_403_on_the_admin_routes(keyed, route):
    response = await send(keyed, route, "alice", bearer(ALICE_KEY))
    assert response.status_code == 403, (route, response.text)
    assert error_type(response) == "FORBIDDEN"


@pytest.mark.parametrize(
    "route",
    sorted(route for route in USER_ROUTES if ROUTE_REQUESTS[route] is not None),
)
async def test_a_key_bound_to_another_user_is_403_on_every_route_naming_a_user(keyed, route):
    response = await send(keyed, route, "bob", bearer(ALICE_KEY))
    assert response.status_code == 403, (route, response.text)
    assert error_type(response) == "FORBIDDEN"
    # An unbound key may act for anyone.
    assert (await send(keyed, route, "bob", bearer(OPEN_KEY))).status_code != 403


async def test_the_page_its_files_the_chat_component_health_and_readiness_need_no_key(keyed):
    open_paths = ("/", "/static/app.js", "/embed/sql-agent-chat.js", "/health", "/ready")
    for path in (*open_paths, "/api/v0/ready"):
        assert (await keyed.http.get(path)).status_code == 200, path
    assert (await keyed.http.get("/openapi.json")).status_code == 401


async def test_a_key_bound_user_may_not_reach_another_users_thread_through_openai_metadata(keyed):
    response = await keyed.http.post(
        "/v1/chat/completions",
        json={
            "messages": [{"role": "user", "content": "q"}],
            "metadata": {"conversation_id": BOB_THREAD},
        },
        headers=bearer(ALICE_KEY),
    )
    assert response.status_code == 403
    assert response.json()["error"] == {
        "message": "this API key may not access user bob",
        "type": "permission_error",
        "param": None,
        "code": "forbidden",
    }


async def test_eventsource_may_send_the_key_as_a_query_parameter(keyed):
    response = await keyed.http.get(
        "/api/v0/ask_react_agent_stream",
        params={"question": "q", "user_id": "alice", "api_key": ALICE_KEY},
    )
    assert response.status_code == 200 and '"type":"completed"' in response.text
    refused = await keyed.http.get(
        "/api/v0/ask_react_agent_stream",
        params={"question": "q", "user_id": "bob", "api_key": ALICE_KEY},
    )
    assert refused.status_code == 403


async def test_mcp_needs_a_key_and_keeps_a_bound_key_to_its_users(keyed):
    response = await keyed.http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401 and response.json()["data"]["error_type"] == "UNAUTHORIZED"
    async with http_session(keyed.base_url, ALICE_KEY) as session:
        mine = await session.call_tool("ask_data", {"question": "q"})
        theirs = await session.call_tool(
            "ask_data", {"question": "q", "conversation_id": BOB_THREAD}
        )
    assert not mine.is_error and mine.structured_content["conversation_id"].startswith("alice:")
    assert theirs.is_error and "FORBIDDEN" in theirs.content[0].text


def test_keys_parse_from_the_setting_and_file_syntax():
    keys = parse_api_keys("k1; k2=alice, bob ;\n# a comment\nk3=\n")
    assert [(k.secret, k.users) for k in keys] == [
        (b"k1", None),
        (b"k2", frozenset({"alice", "bob"})),
        (b"k3", frozenset()),
    ]


async def test_keys_come_from_a_file_too_and_are_never_logged(settings, tmp_path, caplog):
    key_file = tmp_path / "keys.txt"
    key_file.write_text(f"# service keys\n{ALICE_KEY}=alice\n", encoding="utf-8")
    keyed_settings = settings.model_copy(update={"api_keys_file": key_file})
    caplog.set_level("DEBUG")
    async with running_service(keyed_settings, model=ScriptedChatModel(default=answer("ok"))) as s:
        assert (await s.http.get("/v1/models", headers=bearer(ALICE_KEY))).status_code == 200
        assert (await s.http.get("/v1/models", headers=bearer("nope"))).status_code == 401
        health = (await s.http.get("/health")).text
    assert ALICE_KEY not in caplog.text and ALICE_KEY not in health
    assert ALICE_KEY not in repr(keyed_settings.model_copy(update={"api_keys": SecretStr("x")}))
    assert re.search(
        r"\*{5,}", repr(settings.model_copy(update={"api_keys": SecretStr(ALICE_KEY)}))
    )


def test_the_access_log_masks_a_key_sent_as_a_query_parameter(caplog):
    access = logging.getLogger("hypercorn.access")
    access.addFilter(ACCESS_LOG_REDACTION)  # create_app installs it; here without an app
    caplog.set_level("INFO", logger="hypercorn.access")
    # Hypercorn logs a format string with a dict of atoms, the request line among them.
    access.info('"%(r)s" %(s)s', {"r": f"GET /x?q=1&api_key={ALICE_KEY}&u=a HTTP/1.1", "s": 200})
    assert ALICE_KEY not in caplog.text and "api_key=***&u=a" in caplog.text


async def test_a_key_bound_to_one_user_acts_as_that_user_when_none_is_named(keyed):
    # No user named anywhere: the key's one user asks, not "guest" (issue #29).
    response = await keyed.http.post(
        "/api/v0/ask_react_agent", json={"question": "q"}, headers=bearer(ALICE_KEY)
    )
    assert response.status_code == 200
    assert response.json()["data"]["conversation_id"].startswith("alice:")
    chat = await keyed.http.post(
        "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "q"}]},
        headers=bearer(ALICE_KEY),
    )
    assert chat.status_code == 200, chat.text
    assert chat.json()["conversation_id"].startswith("alice:")
    named_guest = await keyed.http.post(
        "/api/v0/ask_react_agent",
        json={"question": "q", "user_id": "guest"},
        headers=bearer(ALICE_KEY),
    )
    assert named_guest.status_code == 403
    assert named_guest.json()["data"]["error_type"] == "FORBIDDEN"
    allowed = await keyed.http.post(
        "/api/v0/ask_react_agent", json={"question": "q"}, headers=bearer(OPEN_KEY)
    )
    assert allowed.status_code == 200
    assert allowed.json()["data"]["conversation_id"].startswith("guest:")


async def test_a_body_that_is_not_utf8_is_a_4xx_not_a_500_with_a_bound_key(keyed):
    # The key check reads JSON bodies for the users they name; a body it cannot read is the
    # route's to refuse.
    response = await keyed.http.post(
        "/api/v0/react/runs/0/cancel",
        content=b"\xa5",
        headers={**bearer(ALICE_KEY), "Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert error_type(response) == "USER_ID_REQUIRED"


async def test_a_key_bound_to_one_user_may_not_change_or_delete_another_users_rating(keyed):
    added = await keyed.http.post(
        "/api/v0/qa_feedback/add",
        headers=bearer(OPEN_KEY),
        json={"question": "q", "sql": "SELECT 1", "is_thumb_up": True, "user_id": "bob"},
    )
    assert added.status_code == 200, added.text
    feedback_id = added.json()["data"]["feedback_id"]

    async def bobs_ratings() -> list[dict[str, Any]]:
        response = await keyed.http.post(
            "/api/v0/qa_feedback/query", headers=bearer(OPEN_KEY), json={"user_id": "bob"}
        )
        return response.json()["data"]["records"]

    before = await bobs_ratings()
    assert [record["id"] for record in before] == [feedback_id]
    update, delete = (f"/api/v0/qa_feedback/{verb}/{feedback_id}" for verb in ("update", "delete"))
    # Naming bob is 403 (the request's own claim); bob's rating by its id is as a missing
    # one (404), so an id never tells whose it is.
    for params, status, code in (
        ({}, 404, "FEEDBACK_NOT_FOUND"),
        ({"user_id": "alice"}, 404, "FEEDBACK_NOT_FOUND"),
        ({"user_id": "bob"}, 403, "FORBIDDEN"),
    ):
        # A change of the thumb, and a move of the rating to alice.
        for body in ({"is_thumb_up": False}, {"user_id": "alice"}):
            response = await keyed.http.put(
                update, params=params, json=body, headers=bearer(ALICE_KEY)
            )
            assert response.status_code == status, (params, body, response.text)
            assert error_type(response) == code
            assert status == 403 or "bob" not in response.text
        response = await keyed.http.delete(delete, params=params, headers=bearer(ALICE_KEY))
        assert response.status_code == status, (params, response.text)
        assert error_type(response) == code
    assert await bobs_ratings() == before

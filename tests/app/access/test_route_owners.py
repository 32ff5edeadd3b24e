"""One owner check on every route: a table over the app's routes, and alice's key with bob's ids.

Every route of `app.url_map` has a row saying how its owner is checked; a new route without
one fails the first test. The corpus then sends, with a key bound to alice, bob's user and
thread ids by every way a route could read them (a JSON body without Content-Type, with
text/plain, duplicated keys, form-encoded, the query string, a repeated query field, a
thread id, Last-Event-ID). Rule: a user the request names that the key may not act for is
403 FORBIDDEN (the name is the caller's own, nothing leaks); a record found by its id (a
run, a rating) whose owner is not the key's user is answered as a missing one (404, and
204 for a stream's resume), so an id never tells whose it is.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from app.http.app_state import agent_service_of
from react_agent.runs.store.events import RUNNING
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer
from tests.support.sse import STREAM_PATH, collect_stream, open_stream

OPEN_KEY = "owners-open-key-0123456789"
ALICE_KEY = "owners-alice-key-0123456789"
BOB_THREAD = "bob:20250101000000000"
ALICE_THREAD = "alice:20250101000000000"

OPEN = "open: no key, names no user"
KEY_ONLY = "key only: names no user and reads nothing of one"
ADMIN = "admin key only (require_admin): 403 for a key bound to users"
AUDIT = "audit readers (role audit, or an admin key); ?user= is a filter"
CLAIM = "the user it names (path, query, body of any type) → authorize_user: 403"
THREAD = "the thread in its path names its owner → authorize_user: 403"
RUN = "a run by id: owns(the run's user, the user named) else 404 RUN_NOT_FOUND"
RATING = "a rating by id: owns(the rating's user) else 404 FEEDBACK_NOT_FOUND"
STREAM = "CLAIM, and Last-Event-ID: owns(the run's user) else 204 as an unknown run"
UPLOAD = "CLAIM; its multipart form's user_id is checked by the route (authorize_user)"

OWNER_CHECKS: dict[tuple[str, str], str] = {
    ("GET", "/"): OPEN,
    ("GET", "/static/<path:filename>"): OPEN,
    ("GET", "/embed/sql-agent-chat.js"): OPEN,
    ("GET", "/health"): OPEN,
    ("GET", "/ready"): OPEN,
    ("GET", "/api/v0/ready"): OPEN,
    ("GET", "/openapi.json"): KEY_ONLY,
    ("GET", "/docs"): KEY_ONLY,
    ("GET", "/metrics"): KEY_ONLY,
    ("GET", "/api/v0/whoami"): KEY_ONLY,
    ("GET", "/v1/models"): KEY_ONLY,
    ("GET", "/api/v0/schema"): CLAIM,
    ("GET", "/api/v0/suggestions"): CLAIM,
    ("POST", "/api/v0/schema/refresh"): ADMIN,
    ("GET", "/api/v0/qa_feedback/stats"): ADMIN,
    ("POST", "/api/v0/qa_feedback/add_to_training"): ADMIN,
    ("POST", "/api/v0/training_data/create"): ADMIN,
    ("POST", "/api/v0/training_data/query"): ADMIN,
    ("POST", "/api/v0/training_data/update"): ADMIN,
    ("POST", "/api/v0/training_data/delete"): ADMIN,
    ("GET", "/api/v0/training_data/stats"): ADMIN,
    ("GET", "/api/v0/instructions"): ADMIN,
    ("POST", "/api/v0/instructions"): ADMIN,
    ("PUT", "/api/v0/instructions/<ident>"): ADMIN,
    ("GET", "/api/v0/audit"): AUDIT,
    ("POST", "/api/v0/ask_react_agent"): CLAIM,
    ("POST", "/api/chat"): CLAIM,
    ("POST", "/v1/chat/completions"): CLAIM,
    ("POST", "/api/v0/qa_feedback/add"): CLAIM,
    ("POST", "/api/v0/qa_feedback/query"): CLAIM,
    ("GET", "/api/v0/usage"): CLAIM,
    ("GET", "/api/v0/datasets"): CLAIM,
    ("DELETE", "/api/v0/datasets/<dataset_id>"): CLAIM,
    ("POST", "/api/v0/datasets"): UPLOAD,
    ("PUT", "/api/v0/datasets/<dataset_id>"): UPLOAD,
    ("GET", "/api/v0/react/users/<user_id>/conversations"): CLAIM,
    ("GET", "/api/v0/react/users/<user_id>/conversations/<thread_id>"): THREAD,
    ("GET", "/api/v0/react/conversations/<thread_id>"): THREAD,
    ("PATCH", "/api/v0/react/conversations/<thread_id>"): THREAD,
    ("DELETE", "/api/v0/react/conversations/<thread_id>"): THREAD,
    ("GET", "/api/v0/react/status/<thread_id>"): THREAD,
    ("GET", "/api/v0/react/conversations/<thread_id>/results/<result_id>.csv"): THREAD,
    ("POST", "/api/v0/react/runs/<run_id>/cancel"): RUN,
    ("PUT", "/api/v0/qa_feedback/update/<feedback_id>"): RATING,
    ("DELETE", "/api/v0/qa_feedback/delete/<feedback_id>"): RATING,
    ("POST", STREAM_PATH): STREAM,
    ("GET", STREAM_PATH): STREAM,
    ("GET", "/api/v0/ask_react_agent_stream_sync"): STREAM,
}
"""(method, rule) → how the route checks its owner."""

ASK = {"question": "q"}
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    # What a route's body is besides the user, so that, unchecked, bob's ids would work.
    ("POST", "/api/v0/ask_react_agent"): ASK,
    ("POST", "/api/chat"): ASK,
    ("POST", STREAM_PATH): ASK,
    ("POST", "/v1/chat/completions"): {"messages": [{"role": "user", "content": "q"}]},
    ("POST", "/api/v0/qa_feedback/add"): {"question": "q", "sql": "SELECT 1", "is_thumb_up": True},
    ("POST", "/api/v0/qa_feedback/query"): {},
}
QUERIES: dict[tuple[str, str], dict[str, str]] = {
    ("GET", STREAM_PATH): ASK,
    ("GET", "/api/v0/ask_react_agent_stream_sync"): ASK,
    ("GET", "/api/v0/usage"): {},
    ("GET", "/api/v0/datasets"): {},
    ("GET", "/api/v0/schema"): {},
    ("GET", "/api/v0/suggestions"): {},
}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def body_variants(base: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Return bob's ids in a body, every way a route could read them (httpx request kwargs)."""
    bob = {**base, "user_id": "bob"}
    by_thread = {**base, "thread_id": BOB_THREAD}
    raw = json.dumps(bob).encode()
    duplicated = json.dumps(base)[:-1].rstrip()
    duplicated += (", " if base else "") + '"user_id": "alice", "user_id": "bob"}'
    return [
        ("JSON without Content-Type", {"content": raw}),
        ("JSON as text/plain", {"content": raw, "headers": {"Content-Type": "text/plain"}}),
        ("JSON as application/octet-stream", {"content": raw, "headers": {"Content-Type": "x/y"}}),
        ("duplicated key, last bob", {"content": duplicated.encode()}),
        ("form-encoded", {"data": {k: str(v) for k, v in bob.items() if isinstance(v, str)}}),
        ("thread id, no Content-Type", {"content": json.dumps(by_thread).encode()}),
        ("conversation_id", {"json": {**base, "conversation_id": BOB_THREAD}}),
        ("query string", {"params": {"user_id": "bob"}, "json": base or {"page": 1}}),
    ]


def query_variants(base: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """Return bob's ids in a query string (and a stray body), every way they could be read."""
    return [
        ("user_id", {"params": {**base, "user_id": "bob"}}),
        ("user alias", {"params": {**base, "user": "bob"}}),
        ("thread_id", {"params": {**base, "thread_id": BOB_THREAD}}),
        ("conversation_id", {"params": {**base, "conversation_id": BOB_THREAD}}),
        (
            "repeated user_id, bob second",
            {"params": [*base.items(), ("user_id", "alice"), ("user_id", "bob")]},
        ),
        ("body on a GET", {"params": base, "content": json.dumps({"user_id": "bob"}).encode()}),
    ]


@pytest.fixture
async def keyed(settings) -> AsyncIterator[ServiceClient]:
    keyed_settings = settings.model_copy(
        update={
            "api_keys": SecretStr(f"{OPEN_KEY}; {ALICE_KEY}=alice"),
            "stream_resume_grace": 0.0,
            "metrics": True,  # every route there is: /metrics too
        }
    )
    model = ScriptedChatModel(default=answer("bob's secret answer"))
    async with running_service(keyed_settings, model=model) as client:
        yield client


def routes_of(client: ServiceClient) -> set[tuple[str, str]]:
    return {
        (method, rule.rule)
        for rule in client.app.url_map.iter_rules()
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }


def error_type(response: httpx.Response) -> str:
    body = response.json()
    if isinstance(body.get("error"), dict):
        return body["error"]["code"].upper()  # the OpenAI format
    return body["data"]["error_type"]


async def test_every_route_has_a_row_in_the_owner_table(keyed):
    assert routes_of(keyed) == set(OWNER_CHECKS)


@pytest.mark.parametrize("route", sorted(BODIES))
async def test_bobs_ids_in_a_body_of_any_type_are_403_for_alices_key(keyed, route):
    method, path = route
    for name, request in body_variants(BODIES[route]):
        headers = {**bearer(ALICE_KEY), **request.pop("headers", {})}
        response = await keyed.http.request(method, path, headers=headers, **request)
        assert response.status_code == 403, (route, name, response.text)
        assert error_type(response) == "FORBIDDEN", (route, name)
        assert "bob's secret answer" not in response.text


@pytest.mark.parametrize("route", sorted(QUERIES))
async def test_bobs_ids_in_a_query_string_are_403_for_alices_key(keyed, route):
    method, path = route
    for name, request in query_variants(QUERIES[route]):
        response = await keyed.http.request(method, path, headers=bearer(ALICE_KEY), **request)
        assert response.status_code == 403, (route, name, response.text)
        assert error_type(response) == "FORBIDDEN", (route, name)


@pytest.mark.parametrize(
    "route", sorted(route for route, check in OWNER_CHECKS.items() if check == THREAD)
)
async def test_bobs_thread_in_the_path_is_403_for_alices_key(keyed, route):
    method, rule = route
    for thread, query in ((BOB_THREAD, {}), (ALICE_THREAD, {"user_id": "bob"})):
        path = (
            rule.replace("<thread_id>", thread)
            .replace("<user_id>", thread.partition(":")[0])
            .replace("<result_id>", "call_1")
        )
        extra = {"json": {"title": "t"}} if method == "PATCH" else {}
        response = await keyed.http.request(
            method, path, params=query, headers=bearer(ALICE_KEY), **extra
        )
        assert response.status_code == 403, (route, thread, query, response.text)
        assert error_type(response) == "FORBIDDEN"


async def bobs_run(keyed: ServiceClient) -> tuple[str, list[str]]:
    """Return the run id of a question bob asked (with the open key) and its event ids."""
    events = await collect_stream(
        keyed.http, json={"question": "q", "user_id": "bob"}, headers=bearer(OPEN_KEY)
    )
    assert any("bob's secret answer" in json.dumps(event.envelope) for event in events)
    return events[0].id.partition(":")[0], [event.id for event in events]


async def test_alice_cannot_replay_bobs_stream_by_last_event_id(keyed):
    run_id, _ = await bobs_run(keyed)
    resume = {"Last-Event-ID": f"{run_id}:0", "Accept": "text/event-stream"}
    # Bob's run is as an unknown one for alice's key, however she reconnects.
    for method, request in (
        ("GET", {"params": {"question": "q"}}),
        ("GET", {}),
        ("POST", {"json": {"question": "q"}}),
        ("POST", {"content": b""}),
        ("GET", {"params": {"question": "q", "user_id": "alice"}}),
    ):
        response = await keyed.http.request(
            method, STREAM_PATH, headers={**bearer(ALICE_KEY), **resume}, **request
        )
        assert response.status_code == 204, (method, request, response.text)
        assert "bob's secret answer" not in response.text
    # Naming bob is alice's key's own claim: 403, by query or by a body of any type.
    for request in (
        {"params": {"user_id": "bob"}},
        {"params": {"thread_id": BOB_THREAD}},
        {"content": b'{"user_id": "bob"}', "method": "POST"},
        {"content": b'{"user_id": "bob"}', "method": "POST", "ct": "text/plain"},
        {"data": {"user_id": "bob"}, "method": "POST"},
    ):
        method = request.pop("method", "GET")
        content_type = request.pop("ct", None)
        headers = {**bearer(ALICE_KEY), **resume}
        if content_type:
            headers["Content-Type"] = content_type
        response = await keyed.http.request(method, STREAM_PATH, headers=headers, **request)
        assert response.status_code == 403, (method, request, response.text)
    # The owner's key (here the open one) replays it: the check is on the owner, not the id.
    replay = await keyed.http.get(STREAM_PATH, headers={**bearer(OPEN_KEY), **resume})
    assert replay.status_code == 200 and "bob's secret answer" in replay.text
    named_other = await keyed.http.get(
        STREAM_PATH, params={"user_id": "carol"}, headers={**bearer(OPEN_KEY), **resume}
    )
    assert named_other.status_code == 204


async def test_alice_cannot_cancel_bobs_run(keyed):
    run_id, _ = await bobs_run(keyed)
    path = f"/api/v0/react/runs/{run_id}/cancel"
    as_alice = bearer(ALICE_KEY)
    for request in (
        {"json": {"user_id": "alice"}},
        {"params": {"user_id": "alice"}},
    ):
        response = await keyed.http.post(path, headers=as_alice, **request)
        assert response.status_code == 404, (request, response.text)
        assert error_type(response) == "RUN_NOT_FOUND"
    for request in (
        {"content": b'{"user_id": "bob"}'},
        {"content": b'{"user_id": "bob"}', "headers": {"Content-Type": "text/plain"}},
        {"data": {"user_id": "bob"}},
        {"params": {"user_id": "bob"}},
        {"params": [("user_id", "alice"), ("user_id", "bob")]},
    ):
        headers = {**as_alice, **request.pop("headers", {})}
        response = await keyed.http.post(path, headers=headers, **request)
        assert response.status_code == 403, (request, response.text)
    mine = await keyed.http.post(path, headers=bearer(OPEN_KEY), json={"user_id": "bob"})
    assert mine.status_code == 200 and mine.json()["data"]["status"] == "finished"


async def test_alice_neither_reads_nor_writes_bobs_ratings_by_any_body(keyed):
    added = await keyed.http.post(
        "/api/v0/qa_feedback/add",
        headers=bearer(OPEN_KEY),
        json={"question": "bob's q", "sql": "SELECT 1", "is_thumb_up": True, "user_id": "bob"},
    )
    feedback_id = added.json()["data"]["feedback_id"]

    async def ratings(user: str) -> list[dict[str, Any]]:
        response = await keyed.http.post(
            "/api/v0/qa_feedback/query", headers=bearer(OPEN_KEY), json={"user_id": user}
        )
        return response.json()["data"]["records"]

    before = await ratings("bob")
    for verb, method in (("update", "PUT"), ("delete", "DELETE")):
        response = await keyed.http.request(
            method,
            f"/api/v0/qa_feedback/{verb}/{feedback_id}",
            headers=bearer(ALICE_KEY),
            content=b'{"is_thumb_up": false}' if method == "PUT" else None,
        )
        assert response.status_code == 404, (verb, response.text)
        assert error_type(response) == "FEEDBACK_NOT_FOUND" and "bob" not in response.text
    # What the bodies of the body corpus did not change (they were all refused).
    assert await ratings("bob") == before
    assert await ratings("alice") == []


async def test_alice_cannot_cancel_bobs_running_question(settings):
    model = ScriptedChatModel(replies=[answer("bob's secret answer")])
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[0], model.entered[0] = gate, entered
    keyed_settings = settings.model_copy(
        update={"api_keys": SecretStr(f"{OPEN_KEY}; {ALICE_KEY}=alice")}
    )
    async with running_service(keyed_settings, model=model) as client:
        store = agent_service_of(client.app).run_store.events
        ask = {"question": "q", "user_id": "bob"}
        async with open_stream(client.http, json=ask, headers=bearer(OPEN_KEY)) as (_, events):
            run_id = (await anext(events)).id.partition(":")[0]
            await entered.wait()
            path = f"/api/v0/react/runs/{run_id}/cancel"
            for request in (
                {"json": {"user_id": "alice"}},
                {"content": b'{"user_id": "bob"}'},
                {"content": b'{"user_id": "bob"}', "headers": {"Content-Type": "text/plain"}},
                {"data": {"user_id": "bob"}},
                {"params": {"user_id": "bob"}},
            ):
                headers = {**bearer(ALICE_KEY), **request.pop("headers", {})}
                response = await client.http.post(path, headers=headers, **request)
                assert response.status_code in (403, 404), (request, response.text)
                assert (await store.record(run_id)).status == RUNNING
            mine = await client.http.post(path, headers=bearer(OPEN_KEY), json={"user_id": "bob"})
            assert mine.json()["data"]["status"] == "cancelling", mine.text
            gate.set()
            rest = [event.type async for event in events]
    assert "error" in rest and "completed" not in rest

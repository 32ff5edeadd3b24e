"""Bad input over real HTTP: a clear 4xx, never a 5xx, and the service keeps answering.

One service runs as `python -m app` for the whole module (its Hypercorn settings are the
deployed ones, which matter for huge request lines), with BODY_TIMEOUT shortened so a
slow body is cut within the test. After every test the process must still be running,
answer /health, and have logged no traceback.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest

from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub
from tests.support.service_process import (
    ServiceProcess,
    health_status,
    spawn_service,
    stop_process,
    wait_until_ready,
)
from tests.support.sse import StreamEvent, collect_stream, open_stream

BODY_TIMEOUT = 2.0
"""BODY_TIMEOUT of the service under test, in seconds."""

MAX_BODY_BYTES = 64 * 1024
SYNC_PATH = "/api/v0/ask_react_agent"
STREAM_PATH = "/api/v0/ask_react_agent_stream"
JSON_HEADERS = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    """Start an OpenAI-compatible server on 127.0.0.1 for the module."""
    with OpenAIStub() as server:
        yield server


@pytest.fixture(scope="module")
def service(stub: OpenAIStub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    """Run one service process for the module."""
    env = {
        "OPENAI_BASE_URL": stub.base_url,
        "CHECKPOINT_DATABASE_URL": "memory",
        "BODY_TIMEOUT": str(BODY_TIMEOUT),
        "LOG_LEVEL": "WARNING",
    }
    process = spawn_service(env, tmp_path_factory.mktemp("bad-input"))
    try:
        wait_until_ready(process)
        yield process
    finally:
        stop_process(process.process)


@pytest.fixture(autouse=True)
def still_healthy(service: ServiceProcess) -> Iterator[None]:
    """After the test: the process runs, /health answers 200, and no traceback was logged."""
    logged = len(service.log_tail(10**9))
    yield
    assert service.process.poll() is None, service.log_tail()
    assert health_status(service.base_url) == 200, service.log_tail()
    new_log = service.log_tail(10**9)[logged:]
    assert "Traceback" not in new_log and "ERROR" not in new_log, new_log


@pytest.fixture
async def http(service: ServiceProcess) -> AsyncIterator[httpx.AsyncClient]:
    """Return an httpx client for the service."""
    async with httpx.AsyncClient(base_url=service.base_url, timeout=30) as client:
        yield client


@dataclass
class RawResponse:
    """What a raw socket client read: the status (None: nothing), headers and body."""

    status: int | None
    headers: dict[str, str]
    body: bytes

    def envelope(self) -> dict[str, Any]:
        """Return the body as JSON."""
        return json.loads(self.body)


async def raw_request(
    base_url: str, parts: list[bytes], *, pause: float = 0.0, timeout: float = 15.0
) -> RawResponse:
    """Send `parts` over one new connection (`pause` seconds apart), then read to EOF.

    For what httpx refuses to send (a 200 KB URL, raw non-ASCII bytes in the request
    line) and to control how the bytes arrive. The connection asks to be closed, so the
    response ends at EOF. The response is read while the parts go out, as curl does: a
    server may answer (a 431 for a head too large) and close before it has taken every
    byte, and then the write fails with a broken pipe while the answer is already here.
    """
    address = urlsplit(base_url)
    loop = asyncio.get_running_loop()
    # A plain socket, not asyncio's streams: a stream's failed write poisons its reader,
    # while the kernel still hands out the answer it received before the close.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setblocking(False)
        async with asyncio.timeout(timeout):
            await loop.sock_connect(sock, (address.hostname, address.port))
            reading = asyncio.ensure_future(receive_to_eof(sock))
            try:
                for index, part in enumerate(parts):
                    if index and pause:
                        await asyncio.sleep(pause)  # pacing the client, not synchronising
                    await loop.sock_sendall(sock, part)
            except ConnectionError:
                pass  # the server closed early; what it answered is read below
            data = await reading
    return parse_response(data)


async def receive_to_eof(sock: socket.socket) -> bytes:
    """Read until EOF; a reset after the answer keeps what was read before it."""
    loop = asyncio.get_running_loop()
    chunks = []
    try:
        while chunk := await loop.sock_recv(sock, 65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def parse_response(data: bytes) -> RawResponse:
    """Split an HTTP/1.1 response into status, headers and (de-chunked) body."""
    if not data:
        return RawResponse(None, {}, b"")
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        chunks, rest = [], body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            chunks.append(rest[:size])
            rest = rest[size + 2 :]
        body = b"".join(chunks)
    return RawResponse(int(status_line.split()[1]), headers, body)


def sse_envelopes(body: bytes) -> list[dict[str, Any]]:
    """Return the envelopes of the `data:` lines of an event stream body."""
    return [
        json.loads(line[len("data: ") :])
        for line in body.decode("utf-8").splitlines()
        if line.startswith("data: ")
    ]


def get_stream_request(query: bytes) -> bytes:
    """Return a GET of the stream endpoint with a raw query string, asking to close after."""
    return (
        b"GET " + STREAM_PATH.encode() + b"?" + query + b" HTTP/1.1\r\n"
        b"Host: 127.0.0.1\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
    )


async def post_both(http: httpx.AsyncClient, **request: Any) -> list[tuple[int, dict[str, Any]]]:
    """POST the same request to both endpoints; return each one's status and error envelope.

    The stream endpoint answers a bad request with HTTP 200 and an `error` event then
    `end`, unless the body never became a request (413, 408), which it answers as JSON.
    """
    sync = await http.post(SYNC_PATH, **request)
    outcomes = [(sync.status_code, sync.json())]
    async with open_stream(http, **request) as (response, events):
        if response.headers["content-type"].startswith("application/json"):
            await response.aread()
            outcomes.append((response.status_code, response.json()))
        else:
            received: list[StreamEvent] = [event async for event in events]
            assert response.status_code == 200
            assert [e.type for e in received] == ["error", "end"], received
            outcomes.append((received[0].envelope["code"], received[0].envelope))
    return outcomes


def assert_error(envelope: dict[str, Any], code: int, error_type: str) -> None:
    """Check an error envelope: its code, its error_type and a message."""
    assert envelope["code"] == code and envelope["success"] is False, envelope
    assert envelope["data"]["error_type"] == error_type, envelope
    assert envelope["message"] and isinstance(envelope["data"]["can_retry"], bool)


# ------------------------------------------------------------------ oversized bodies


async def test_body_over_the_limit_with_content_length_gets_413(http):
    body = json.dumps({"question": "x" * (MAX_BODY_BYTES + 10)}).encode()
    for status, envelope in await post_both(http, content=body, headers=JSON_HEADERS):
        assert status == 413
        assert_error(envelope, 413, "PAYLOAD_TOO_LARGE")


@pytest.mark.parametrize("path", [SYNC_PATH, STREAM_PATH])
async def test_chunked_body_over_the_limit_gets_413_while_it_is_sent(service, path):
    # No Content-Length up front: the limit is noticed once 64 KB have arrived, and the
    # server answers and closes without reading the rest. A client that reads while it
    # uploads (as browsers and curl do) gets the 413; one that only reads after sending
    # everything may find the connection reset instead (Hypercorn has no lingering close).
    payload = [b'{"question": "', *([b"x" * 8192] * 20), b'"}']  # 160 KB in all
    pieces = [b"%x\r\n%s\r\n" % (len(part), part) for part in payload] + [b"0\r\n\r\n"]
    head = post_head(path, "Transfer-Encoding: chunked")
    response, _, sent = await send_paced(service.base_url, head, pieces, 0.02)
    assert response.status == 413, response
    assert_error(response.envelope(), 413, "PAYLOAD_TOO_LARGE")
    assert sent < len(pieces)


# ------------------------------------------------------------------ malformed bodies


async def test_body_that_is_not_utf8_gets_400_invalid_json(http):
    body = b'{"question": "\xff\xfe\xe6\xaf"}'
    for status, envelope in await post_both(http, content=body, headers=JSON_HEADERS):
        assert status == 400
        assert_error(envelope, 400, "INVALID_JSON")
        assert "UTF-8" in envelope["data"]["error"]


@pytest.mark.parametrize(
    ("body", "code", "error_type"),
    [
        # 100k levels are 200 KB: refused for their size before any parsing.
        (b"[" * 100_000 + b"]" * 100_000, 413, "PAYLOAD_TOO_LARGE"),
        # 30k levels fit in 64 KB; the parser's depth limit refuses them.
        (b'{"question": ' + b"[" * 30_000 + b"]" * 30_000 + b"}", 400, "INVALID_JSON"),
        (
            b'{"question": "q", "user_id": ' + b'{"a":' * 10_000 + b"1" + b"}" * 10_000 + b"}",
            400,
            "INVALID_JSON",
        ),
    ],
    ids=["100k_levels", "30k_levels_in_question", "10k_levels_of_objects"],
)
async def test_deeply_nested_json_gets_a_4xx(http, body, code, error_type):
    for status, envelope in await post_both(http, content=body, headers=JSON_HEADERS):
        assert status == code
        assert_error(envelope, code, error_type)


@pytest.mark.parametrize(
    ("body", "error_type"),
    [
        ({"question": 123}, "INVALID_REQUEST"),
        ({"question": None}, "INVALID_REQUEST"),
        ({"question": ["每个地区"]}, "INVALID_REQUEST"),
        ({"question": {"text": "q"}}, "INVALID_REQUEST"),
        ({"question": "q", "user_id": ["wang1"]}, "INVALID_REQUEST"),
        ({"question": "q", "user_id": 42}, "INVALID_REQUEST"),
        ({"question": "q", "thread_id": {"id": 1}}, "INVALID_REQUEST"),
        ({"question": "q", "conversation_id": 20250131}, "INVALID_REQUEST"),
        ({"question": "q", "stream_tokens": "yes"}, "INVALID_REQUEST"),
        ({"question": "q", "lang": 5}, "INVALID_REQUEST"),
        ({"question": True}, "INVALID_REQUEST"),
        (["question", "q"], "INVALID_REQUEST"),
        ("question", "INVALID_REQUEST"),
        (3.14, "INVALID_REQUEST"),
        (None, "INVALID_REQUEST"),
        ({}, "EMPTY_BODY"),
    ],
)
async def test_wrong_types_get_400(http, body, error_type):
    outcomes = await post_both(http, content=json.dumps(body).encode(), headers=JSON_HEADERS)
    for status, envelope in outcomes:
        assert status == 400
        assert_error(envelope, 400, error_type)


@pytest.mark.parametrize(
    ("content", "headers", "error_type"),
    [
        (b"", JSON_HEADERS, "EMPTY_BODY"),
        (b'{"question": "q"', JSON_HEADERS, "INVALID_JSON"),
        (b"\x00\x01\x02", JSON_HEADERS, "INVALID_JSON"),
        (b'{"question": "q"}', {"Content-Type": "text/plain"}, "UNSUPPORTED_CONTENT_TYPE"),
        (
            b"question=q",
            {"Content-Type": "application/x-www-form-urlencoded"},
            "UNSUPPORTED_CONTENT_TYPE",
        ),
    ],
    ids=["empty", "truncated", "binary", "text_plain", "form"],
)
async def test_bodies_that_are_not_json_objects_get_400(http, content, headers, error_type):
    for status, envelope in await post_both(http, content=content, headers=headers):
        assert status == 400
        assert_error(envelope, 400, error_type)


# ------------------------------------------------------------------ the GET stream's URL


async def test_query_string_that_is_not_utf8_gets_an_error_event(service):
    response = await raw_request(service.base_url, [get_stream_request(b"question=%FF%FE%E6")])
    assert response.status == 200
    error, end = sse_envelopes(response.body)
    assert_error(error, 400, "INVALID_REQUEST")
    assert "UTF-8" in error["data"]["error"] and end["data"]["type"] == "end"


async def test_raw_non_ascii_bytes_in_the_request_line_get_a_bare_400(service):
    # Not HTTP at all (h11 refuses it before the app sees a request): a bodiless 400 and
    # a closed connection are all a client can be given.
    response = await raw_request(service.base_url, [get_stream_request(b"question=\xff\xfe")])
    assert response.status == 400


@pytest.mark.parametrize("size", [20_000, 200_000])
async def test_very_long_query_string_gets_an_error_event(service, size):
    query = b"user_id=wang1&question=" + b"q" * size
    response = await raw_request(service.base_url, [get_stream_request(query)])
    assert response.status == 200, response
    error, end = sse_envelopes(response.body)
    assert_error(error, 400, "QUESTION_TOO_LONG")
    assert error["data"]["error"] == f"question has {size} characters; the limit is 2000"
    assert end["data"] == {"type": "end", "thread_id": ""}


async def test_longest_chinese_question_by_get_works_however_its_bytes_arrive(service, stub):
    # 2000 characters are about 18 KB percent-encoded, more than Hypercorn's default limit
    # (16 KiB) for a request head that has not fully arrived: the first 17 KB come alone.
    question = ("每个地区的销售额是多少" * 182)[:2000]
    assert len(question) == 2000
    request = get_stream_request(b"user_id=wang1&question=" + quote(question).encode())
    assert len(request) > 18_000
    response = await raw_request(service.base_url, [request[:17_000], request[17_000:]], pause=0.2)
    assert response.status == 200, response
    envelopes = sse_envelopes(response.body)
    assert [e["data"]["type"] for e in envelopes][-2:] == ["completed", "end"]
    assert envelopes[-2]["data"]["sql"] == DEFAULT_SALES_SQL


async def test_request_head_beyond_the_largest_read_gets_a_bare_431(service):
    # 1 MB: more than MAX_REQUEST_HEAD_BYTES, so Hypercorn refuses it before the app.
    response = await raw_request(
        service.base_url, [get_stream_request(b"question=" + b"q" * 1_000_000)]
    )
    assert response.status == 431


# ------------------------------------------------------------------ slow bodies


async def send_paced(
    base_url: str, head: bytes, pieces: list[bytes], interval: float
) -> tuple[RawResponse, float, int]:
    """Send the head, then one piece of the body every `interval` s until the server answers.

    The response is read all along, as a browser or curl does while it uploads. Returns
    the response, the seconds from the head to the response, and the pieces sent by then.
    """
    address = urlsplit(base_url)
    loop = asyncio.get_running_loop()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setblocking(False)
        async with asyncio.timeout(BODY_TIMEOUT + 15):
            await loop.sock_connect(sock, (address.hostname, address.port))
            await loop.sock_sendall(sock, head)
            started = time.monotonic()
            answered = asyncio.ensure_future(receive_to_eof(sock))
            sent = 0
            try:
                for piece in pieces:
                    if answered.done():
                        break
                    await loop.sock_sendall(sock, piece)
                    sent += 1
                    await asyncio.sleep(interval)  # pacing the client
            except ConnectionError:
                pass  # the server answered and closed; its answer is read below
            data = await answered
            elapsed = time.monotonic() - started
    return parse_response(data), elapsed, sent


def post_head(path: str, framing: str) -> bytes:
    """Return the head of a JSON POST whose body framing header is `framing`."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{framing}\r\nConnection: close\r\n\r\n"
    ).encode()


async def send_slowly(
    base_url: str, body: bytes, interval: float, path: str = SYNC_PATH
) -> tuple[RawResponse, float, int]:
    """Send a body with Content-Length one byte every `interval` s (see `send_paced`)."""
    head = post_head(path, f"Content-Length: {len(body)}")
    return await send_paced(base_url, head, [bytes([byte]) for byte in body], interval)


@pytest.mark.parametrize("path", [SYNC_PATH, STREAM_PATH])
async def test_body_sent_too_slowly_gets_408_after_body_timeout(service, path):
    body = json.dumps({"question": "每个地区的销售额是多少"}, ensure_ascii=False).encode()
    interval = 0.25  # the whole body would take about 11 s
    response, elapsed, sent = await send_slowly(service.base_url, body, interval, path)
    assert response.status == 408, response
    envelope = response.envelope()
    assert_error(envelope, 408, "REQUEST_TIMEOUT")
    assert envelope["data"]["can_retry"] is True
    # Cut while the body was still coming (no clock needed for that), and not before the
    # limit: a lower bound a busy machine cannot break, as it only makes the client slower.
    assert sent < len(body)
    assert elapsed >= BODY_TIMEOUT, elapsed


async def test_body_sent_slowly_but_within_body_timeout_is_answered(service):
    body = b'{"question":"q"}'
    # The whole body in about a quarter of the limit, one byte at a time: the sleeps may
    # overrun on a busy machine, and the 200 needs the last byte in before the limit.
    interval = BODY_TIMEOUT / 4 / len(body)
    response, _, sent = await send_slowly(service.base_url, body, interval)
    assert response.status == 200, response
    assert response.envelope()["data"]["sql"] == DEFAULT_SALES_SQL
    assert sent == len(body)


# ------------------------------------------------------------------ after all that


async def test_a_normal_question_still_works_on_both_endpoints(http):
    sync = await http.post(SYNC_PATH, json={"question": "q", "user_id": "after"})
    assert sync.status_code == 200 and sync.json()["data"]["sql"] == DEFAULT_SALES_SQL
    events = await collect_stream(http, "GET", params={"question": "q", "user_id": "after"})
    assert [e.type for e in events][-2:] == ["completed", "end"]

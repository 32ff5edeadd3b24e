"""Offline OpenAI-compatible chat-completions server for tests, CI and benchmarks."""

from __future__ import annotations

import argparse
import base64
import hashlib
import ipaddress
import itertools
import json
import math
import select
import selectors
import signal
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType, TracebackType
from typing import Any, Self

__all__ = [
    "DEFAULT_SALES_SQL",
    "NO_SQL_MARKER",
    "OpenAIStub",
    "Reply",
    "ToolCall",
    "default_policy",
    "main",
]

NO_SQL_MARKER = "[[no-sql]]"
"""Marker in the user's question that makes the default policy answer without a tool call."""

DEFAULT_SALES_SQL = (
    "SELECT r.region_name AS region, ROUND(SUM(o.total_amount), 2) AS sales "
    "FROM orders o "
    "JOIN stores s ON s.store_id = o.store_id "
    "JOIN regions r ON r.region_id = s.region_id "
    "WHERE o.status = '已完成' "
    "GROUP BY r.region_name "
    "ORDER BY sales DESC"
)
"""SQL the default policy runs for any new question (sales per region)."""

_QUOTE_CHARS = 300
# Short slices keep every blocking wait responsive to stop() without busy-looping.
_WAIT_SLICE = 0.05
_JOIN_TIMEOUT = 2.0
_DISCONNECT_ERRORS = (ConnectionError, TimeoutError)


@dataclass
class ToolCall:
    """One tool call the stub model emits."""

    name: str
    args: dict[str, Any] | None = None
    raw_arguments: str | None = None
    """Sent verbatim instead of ``json.dumps(args)``, e.g. to test malformed JSON."""
    id: str | None = None
    """Tool-call id; generated (``call_stub_000001``, ...) when omitted."""

    def arguments_json(self) -> str:
        """Return the arguments string exactly as it goes on the wire."""
        if self.raw_arguments is not None:
            return self.raw_arguments
        return json.dumps(self.args or {}, ensure_ascii=False)


@dataclass
class Reply:
    """One scripted model response: text and/or tool calls, or an HTTP error."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    status: int = 200
    """Anything but 200 sends an OpenAI-style error JSON instead of a completion."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers, e.g. ``{"Retry-After": "1"}``."""
    error_body: dict[str, Any] | None = None
    """Error JSON to send when ``status != 200``; a plausible one is built when omitted."""
    delay: float = 0.0
    """Seconds to wait before answering."""
    hang: bool = False
    """Never answer; the connection is released when the client leaves or the stub stops."""
    drop_after_chunks: int | None = None
    """Close the socket mid-answer: when streaming, after this many SSE events, without
    [DONE]; otherwise (any value) after the headers and half of the JSON body."""
    wait_for: threading.Event | None = None
    """Block until this event is set before answering (or until the client leaves)."""
    chunk_size: int = 4
    """Characters per streamed text delta (and per tool-call arguments delta)."""
    pause_after: tuple[int, threading.Event] | None = None
    """Streaming only: after N SSE events, block until the event is set, then continue (or
    until the client leaves)."""
    report_usage: bool = True
    """Whether to report token usage (some OpenAI-compatible servers never do)."""
    finish_reason: str | None = None
    """Sent instead of "stop" or "tool_calls", e.g. "length" (cut at max_tokens)."""
    chunk_delay: float = 0.0
    """Streaming only: seconds between two SSE events (a server that writes slowly)."""
    more_choices: list[str] = field(default_factory=list)
    """Not streaming: the texts of further choices, sent when the request asks for `n` > 1
    (up to n in all); without them the stub answers one choice, as servers that ignore
    `n` (Ollama, llama.cpp) do."""


Policy = Callable[[dict[str, Any]], Reply]


def message_text(message: dict[str, Any]) -> str:
    """Flatten a chat message's content (string or list of parts) into text."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def default_policy(body: dict[str, Any]) -> Reply:
    """Answer like a minimal SQL agent so a live stub works without any scripting.

    A new question gets a ``run_sql`` call with :data:`DEFAULT_SALES_SQL`; a tool result gets
    a Chinese answer quoting it; a question containing :data:`NO_SQL_MARKER` gets a direct
    text answer.
    """
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    question = next((message_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    if NO_SQL_MARKER in question:
        return Reply(text="这个问题不需要查询数据库，我直接回答：您好！有什么可以帮您？")
    last_role = messages[-1].get("role") if messages else None
    if last_role == "user":
        return Reply(tool_calls=[ToolCall(name="run_sql", args={"sql": DEFAULT_SALES_SQL})])
    if last_role == "tool":
        # The result id differs from run to run; the rows do not, so the answer quotes them.
        result = message_text(messages[-1])
        if result.startswith("result_id:"):
            result = result.partition("\n")[2]
        return Reply(text="查询结果如下：" + result[:_QUOTE_CHARS])
    return Reply(text="好的。")


EMBEDDING_DIMENSIONS = 64


def stub_embedding(text: str) -> list[float]:
    """Return a deterministic unit vector of the text's characters (case and spaces ignored).

    Texts sharing characters point the same way, so nearest neighbours mean something; a
    text with no characters gets a fixed vector.
    """
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for char in "".join(text.lower().split()):
        digest = hashlib.sha256(char.encode()).digest()
        vector[digest[0] % EMBEDDING_DIMENSIONS] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector] if any(vector) else [1.0] + [0.0] * (len(vector) - 1)


def _embeddings_payload(body: dict[str, Any]) -> dict[str, Any]:
    """Body of ``POST /v1/embeddings`` (float lists, or base64 float32 as the SDK asks)."""
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = []
    for index, text in enumerate(inputs):
        vector = stub_embedding(text if isinstance(text, str) else " ".join(map(str, text)))
        encoded: Any = vector
        if body.get("encoding_format") == "base64":
            encoded = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    tokens = sum(_estimate_tokens(str(text)) for text in inputs)
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "stub-embedding"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def _error_body(status: int) -> dict[str, Any]:
    """Build an OpenAI-style error JSON for ``status``."""
    kinds = {
        400: ("invalid_request_error", "invalid_request"),
        401: ("invalid_request_error", "invalid_api_key"),
        404: ("invalid_request_error", "not_found"),
        429: ("requests", "rate_limit_exceeded"),
    }
    err_type, code = kinds.get(status, ("server_error", "server_error"))
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    return {
        "error": {
            "message": f"Stub error {status}: {phrase}",
            "type": err_type,
            "param": None,
            "code": code,
        }
    }


def _estimate_tokens(text: str) -> int:
    """Rough, deterministic token count (about four characters per token)."""
    return max(1, (len(text) + 3) // 4) if text else 0


def _split(text: str, size: int) -> Iterator[str]:
    """Yield ``text`` in pieces of ``size`` characters."""
    size = max(1, size)
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _validate_loopback(host: str) -> None:
    """Raise ValueError unless ``host`` is a loopback address (the stub must never be exposed)."""
    if host == "localhost":
        return
    try:
        address = ipaddress.ip_address(host)
    except ValueError as exc:
        raise ValueError(f"host must be a loopback IP address, got {host!r}") from exc
    if not address.is_loopback:
        raise ValueError(f"host must be a loopback address, got {host!r}")


class _StubServer(ThreadingHTTPServer):
    """Threaded HTTP server that tracks its connections so stop() can release them."""

    daemon_threads = True
    # stop() joins handler threads itself, with a timeout, instead of an unbounded join.
    block_on_close = False
    # socketserver's default backlog of 5 drops SYNs under concurrent load, and the client's
    # SYN retransmit then adds a full second (seen with 8 parallel requests and in benchmarks).
    request_queue_size = 4096

    def __init__(self, address: tuple[str, int], family: socket.AddressFamily, stub: OpenAIStub):
        self.address_family = family
        self.stub = stub
        self.connections: set[socket.socket] = set()
        self.threads: set[threading.Thread] = set()
        self.tracking_lock = threading.Lock()
        # A socketpair wakes the accept loop at once on stop(), unlike serve_forever's polling.
        self._wake_reader, self._wake_writer = socket.socketpair()
        super().__init__(address, _Handler)

    def serve_until_stopped(self) -> None:
        """Accept connections until the stub stops (see wake())."""
        # The selector does the waiting; handle_request() must only accept what is ready.
        self.timeout = 0
        with selectors.DefaultSelector() as selector:
            selector.register(self.socket, selectors.EVENT_READ)
            selector.register(self._wake_reader, selectors.EVENT_READ)
            while not self.stub._stopping.is_set():
                for key, _ in selector.select():
                    if key.fileobj is self.socket and not self.stub._stopping.is_set():
                        self.handle_request()

    def wake(self) -> None:
        """Interrupt serve_until_stopped() so it notices the stub is stopping."""
        try:
            self._wake_writer.send(b"\0")
        except OSError:
            pass

    def server_close(self) -> None:
        """Close the listening socket and the wake-up pair."""
        super().server_close()
        self._wake_reader.close()
        self._wake_writer.close()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection in a tracked daemon thread."""
        thread = threading.Thread(
            target=self._serve_connection,
            args=(request, client_address),
            name="openai-stub-connection",
            daemon=True,
        )
        with self.tracking_lock:
            self.connections.add(request)
            self.threads.add(thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self.tracking_lock:
                self.connections.discard(request)
                self.threads.discard(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about client disconnects and teardown; report real bugs."""
        exc = sys.exc_info()[1]
        if isinstance(exc, _DISCONNECT_ERRORS) or self.stub._stopping.is_set():
            return
        super().handle_error(request, client_address)

    def release_connections(self) -> None:
        """Unblock every handler stuck reading or writing by shutting its socket down."""
        with self.tracking_lock:
            connections = list(self.connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def join_handlers(self, timeout: float) -> None:
        """Wait (bounded) for handler threads to finish."""
        deadline = time.monotonic() + timeout
        with self.tracking_lock:
            threads = list(self.threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))


class _DroppedConnection(Exception):
    """Raised inside a handler when a reply deliberately cuts the connection."""


class _Handler(BaseHTTPRequestHandler):
    """Per-connection request handler; all behaviour lives on the owning OpenAIStub."""

    protocol_version = "HTTP/1.1"
    server_version = "OpenAIStub/1.0"
    # SSE deltas are tiny separate writes; Nagle plus delayed ACKs would add ~40 ms stalls.
    disable_nagle_algorithm = True
    server: _StubServer

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean; the stub records requests instead of logging them."""

    def handle(self) -> None:
        """Serve requests until the client or the stub closes the connection."""
        try:
            super().handle()
        except (_DroppedConnection, *_DISCONNECT_ERRORS):
            self.close_connection = True
        except OSError:
            # Sockets torn down by stop() fail with assorted OSErrors; nothing to report.
            if not self.server.stub._stopping.is_set():
                raise

    @property
    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    def do_GET(self) -> None:
        """Serve ``GET /v1/models``."""
        self._read_body()
        if self._path == "/v1/models":
            self.send_json(200, self.server.stub._models_payload())
        else:
            self.send_json(404, self._not_found())

    def do_POST(self) -> None:
        """Serve ``POST /v1/chat/completions`` and ``POST /v1/embeddings``."""
        raw = self._read_body()
        if self._path == "/v1/embeddings":
            self._serve_embeddings(raw)
            return
        if self._path != "/v1/chat/completions":
            self.send_json(404, self._not_found())
            return
        try:
            body = json.loads(raw or b"null")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.send_json(400, self._bad_request(f"Invalid JSON body: {exc}"))
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self.send_json(400, self._bad_request("'messages' must be a list"))
            return
        self.server.stub._handle_completion(self, body)

    def _serve_embeddings(self, raw: bytes) -> None:
        try:
            body = json.loads(raw or b"null")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.send_json(400, self._bad_request(f"Invalid JSON body: {exc}"))
            return
        if not isinstance(body, dict) or not isinstance(body.get("input"), str | list):
            self.send_json(400, self._bad_request("'input' must be a string or a list"))
            return
        with self.server.stub._lock:
            self.server.stub.embedding_requests.append(body)
        self.send_json(200, _embeddings_payload(body))

    def _not_found(self) -> dict[str, Any]:
        body = _error_body(404)
        body["error"]["message"] = f"Unknown endpoint: {self.command} {self.path}"
        return body

    def _bad_request(self, message: str) -> dict[str, Any]:
        body = _error_body(400)
        body["error"]["message"] = message
        return body

    def _read_body(self) -> bytes:
        """Read the request body so keep-alive connections stay in sync."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    # Skip optional trailers up to the blank line.
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send_json(
        self,
        status: int,
        payload: dict[str, Any],
        headers: dict[str, str] | None = None,
        *,
        truncate: bool = False,
    ) -> None:
        """Send a complete JSON response with Content-Length, keeping the connection alive.

        With `truncate`, only the first half of the body is sent before the connection is cut.
        """
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if truncate:
            self.wfile.write(data[: len(data) // 2])
            self.drop()
        self.wfile.write(data)

    def start_event_stream(self) -> bool:
        """Send SSE response headers; return whether the body uses chunked encoding."""
        # HTTP/1.0 clients cannot decode chunked bodies, so they get close-delimited streams.
        chunked = self.request_version != "HTTP/1.0"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        return chunked

    def client_gone(self) -> bool:
        """Return whether the client has closed its end (readable, with nothing to read).

        Called only while a reply is held: the request is read, and a client waiting for
        its answer sends nothing more on this connection.
        """
        try:
            # poll, not select: a busy benchmark's descriptors go past select's 1024.
            watch = select.poll()
            watch.register(self.connection, select.POLLIN)
            readable = bool(watch.poll(0))
            return readable and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):  # reset, or already closed
            return True

    def drop(self) -> None:
        """Cut the connection now, mid-response."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise _DroppedConnection


class OpenAIStub:
    """Scriptable OpenAI-compatible chat-completions server on a loopback port.

    Scripted :class:`Reply` objects are served first-in first-out; once the queue is empty,
    :attr:`default_policy` answers.
    """

    def __init__(self, latency: float = 0.0, *, host: str = "127.0.0.1", port: int = 0):
        _validate_loopback(host)
        self.latency = latency
        """Fixed delay in seconds before every response (for benchmarks)."""
        self.default_policy: Policy = default_policy
        self.prefix_cache = False
        """Report as `cached_tokens` the tokens of the longest prefix a request shares with
        an earlier one, as a provider's automatic prefix cache would (else 0)."""
        self._cached_prompts: list[str] = []
        """Called from server threads with the request body when no scripted reply is queued."""
        self._stopping = threading.Event()
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[dict[str, Any]] = []
        self._cancelled: list[int] = []
        self._client_left = threading.Condition(self._lock)
        self.embedding_requests: list[dict[str, Any]] = []
        """Bodies of the /v1/embeddings requests received so far, oldest first."""
        self._ids = itertools.count(1)
        self._server: _StubServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Self:
        """Bind the port and serve in a background thread; return self."""
        if self._server is not None:
            return self
        self._stopping.clear()
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        self._server = _StubServer((self._host, self._port), family, self)
        self._thread = threading.Thread(
            target=self._server.serve_until_stopped,
            name="openai-stub-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, release open connections (including hanging replies) and unbind."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.wake()
        if self._thread is not None:
            self._thread.join(_JOIN_TIMEOUT)
            self._thread = None
        server.release_connections()
        server.join_handlers(_JOIN_TIMEOUT)
        server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """Port the server is bound to (only valid after start())."""
        if self._server is None:
            raise RuntimeError("OpenAIStub is not running; call start() first")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """OpenAI base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self.port}/v1"

    # -- scripting -----------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies; each chat-completions request consumes the oldest one."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Snapshot of the chat-completions request bodies received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def cancelled(self) -> list[int]:
        """Indexes into :attr:`requests` of the calls whose client left before the reply ended.

        A client leaves by closing the connection while the stub holds the reply (``hang``,
        ``wait_for``, ``delay``, ``pause_after``, ``chunk_delay``) or is still writing it.
        """
        with self._lock:
            return list(self._cancelled)

    def wait_until_cancelled(self, index: int, timeout: float) -> bool:
        """Block until request `index`'s client has left (True) or `timeout` s pass (False).

        The timeout is a hang guard for tests: noticing takes a poll of the socket.
        """
        with self._client_left:
            return self._client_left.wait_for(lambda: index in self._cancelled, timeout)

    def clear(self) -> None:
        """Forget queued replies, recorded requests and cancellations."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()
            self._cancelled.clear()

    # -- request handling (called from handler threads) ------------------------------------

    def _models_payload(self) -> dict[str, Any]:
        """Body of ``GET /v1/models``."""
        return {
            "object": "list",
            "data": [
                {"id": "stub-model", "object": "model", "created": 0, "owned_by": "openai-stub"}
            ],
        }

    def _next_reply(self, body: dict[str, Any]) -> tuple[int, Reply]:
        """Record the request; return its index in :attr:`requests` and the reply it gets."""
        with self._lock:
            self._requests.append(body)
            index = len(self._requests) - 1
            if self._queue:
                return index, self._queue.popleft()
        try:
            return index, self.default_policy(body)
        except Exception as exc:
            # A broken policy should fail the test with its message, not a bare disconnect.
            error = _error_body(500)
            error["error"]["message"] = f"OpenAIStub default_policy raised {exc!r}"
            return index, Reply(status=500, error_body=error)

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _hold(
        self,
        handler: _Handler,
        *,
        seconds: float | None = None,
        release: threading.Event | None = None,
    ) -> bool:
        """Hold the reply until `release` is set or `seconds` pass (neither given: forever).

        Return False if the stub stops first; raise ConnectionAbortedError if the client
        leaves first (the caller records the cancellation).
        """
        if release is None and seconds is not None and seconds <= 0:
            return True
        deadline = None if seconds is None else time.monotonic() + seconds
        while release is None or not release.is_set():
            remaining = _WAIT_SLICE if deadline is None else deadline - time.monotonic()
            if remaining <= 0:
                return True
            if self._stopping.is_set():
                return False
            if handler.client_gone():
                raise ConnectionAbortedError("the client left while the reply was held")
            # Short slices notice a client that left, or a stop, without busy-looping.
            (release or self._stopping).wait(min(_WAIT_SLICE, remaining))
        return True

    def _ready(self, handler: _Handler, reply: Reply) -> bool:
        """Apply latency, wait_for, delay and hang; return False if the stub is stopping."""
        if not self._hold(handler, seconds=self.latency):
            return False
        if reply.wait_for is not None and not self._hold(handler, release=reply.wait_for):
            return False
        if not self._hold(handler, seconds=reply.delay):
            return False
        if reply.hang:
            self._hold(handler)
        return not self._stopping.is_set()

    def _handle_completion(self, handler: _Handler, body: dict[str, Any]) -> None:
        """Answer one chat-completions request; note it if its client leaves before the end."""
        index, reply = self._next_reply(body)
        try:
            self._answer(handler, body, reply)
        except _DISCONNECT_ERRORS:
            if not self._stopping.is_set():  # stop() cuts connections itself
                with self._client_left:
                    self._cancelled.append(index)
                    self._client_left.notify_all()
            raise

    def _answer(self, handler: _Handler, body: dict[str, Any], reply: Reply) -> None:
        """Send the reply the script or the policy chose for this request."""
        if not self._ready(handler, reply):
            # Stopping: leave without a response so the thread ends and stop() stays prompt.
            handler.close_connection = True
            return
        if reply.status != 200:
            handler.send_json(
                reply.status, reply.error_body or _error_body(reply.status), reply.headers
            )
            return
        model = str(body.get("model") or "stub-model")
        completion_id = f"chatcmpl-stub-{self._next_id():06d}"
        calls = [(call, call.id or f"call_stub_{self._next_id():06d}") for call in reply.tool_calls]
        usage = self._usage(body, reply)
        cached = min(self._cached_tokens(body), usage["prompt_tokens"])
        usage["prompt_tokens_details"]["cached_tokens"] = cached
        if body.get("stream"):
            self._stream(handler, body, reply, model, completion_id, calls, usage)
            return
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text if reply.text or not calls else None,
            "refusal": None,
        }
        if calls:
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_json()},
                }
                for call, call_id in calls
            ]
        choices = [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.finish_reason or ("tool_calls" if calls else "stop"),
            }
        ]
        wanted = body.get("n") if isinstance(body.get("n"), int) else 1
        for text in reply.more_choices[: max(0, wanted - 1)]:
            more = {"role": "assistant", "content": text, "refusal": None}
            choices.append(
                {"index": len(choices), "message": more, "logprobs": None, "finish_reason": "stop"}
            )
        handler.send_json(
            200,
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": "fp_openai_stub",
                "choices": choices,
                **({"usage": usage} if reply.report_usage else {}),
            },
            reply.headers,
            truncate=reply.drop_after_chunks is not None,
        )

    def _cached_tokens(self, body: dict[str, Any]) -> int:
        """Return the tokens of the longest prefix `body` shares with an earlier request."""
        if not self.prefix_cache:
            return 0
        parts = [json.dumps(body.get("tools") or [], sort_keys=True, ensure_ascii=False)]
        parts += [json.dumps(m, sort_keys=True, ensure_ascii=False) for m in body["messages"]]
        prompt = "\n".join(parts)
        with self._lock:
            earlier, self._cached_prompts = self._cached_prompts, [*self._cached_prompts, prompt]
        best = 0
        for seen in earlier:
            same = next(
                (i for i, (a, b) in enumerate(zip(seen, prompt, strict=False)) if a != b), None
            )
            best = max(best, min(len(seen), len(prompt)) if same is None else same)
        return _estimate_tokens(prompt[:best])

    @staticmethod
    def _usage(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        prompt_text = "".join(message_text(m) for m in body["messages"] if isinstance(m, dict))
        prompt = _estimate_tokens(prompt_text) + 4 * len(body["messages"])
        completion = _estimate_tokens(reply.text) + sum(
            _estimate_tokens(c.name + c.arguments_json()) for c in reply.tool_calls
        )
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }

    def _stream(
        self,
        handler: _Handler,
        body: dict[str, Any],
        reply: Reply,
        model: str,
        completion_id: str,
        calls: list[tuple[ToolCall, str]],
        usage: dict[str, Any],
    ) -> None:
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        include_usage = include_usage and reply.report_usage
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            data: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_openai_stub",
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
                ],
            }
            if include_usage:
                # OpenAI sends usage: null on every chunk but the trailing usage chunk.
                data["usage"] = None
            return data

        def events() -> Iterator[dict[str, Any] | str]:
            yield chunk({"role": "assistant", "content": "" if reply.text or not calls else None})
            for piece in _split(reply.text, reply.chunk_size):
                yield chunk({"content": piece})
            for index, (call, call_id) in enumerate(calls):
                header = {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": ""},
                }
                yield chunk({"tool_calls": [header]})
                for piece in _split(call.arguments_json(), reply.chunk_size):
                    delta = {"index": index, "function": {"arguments": piece}}
                    yield chunk({"tool_calls": [delta]})
            yield chunk({}, reply.finish_reason or ("tool_calls" if calls else "stop"))
            if include_usage:
                yield {
                    "id": completion_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "system_fingerprint": "fp_openai_stub",
                    "choices": [],
                    "usage": usage,
                }
            yield "[DONE]"

        chunked = handler.start_event_stream()
        for sent, event in enumerate(events()):
            if reply.drop_after_chunks is not None and sent >= reply.drop_after_chunks:
                handler.drop()
            if sent and not self._hold(handler, seconds=reply.chunk_delay):
                handler.drop()
            if reply.pause_after is not None and sent == reply.pause_after[0]:
                if not self._hold(handler, release=reply.pause_after[1]):
                    handler.drop()
            text = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
            data = f"data: {text}\n\n".encode()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
        if chunked:
            handler.wfile.write(b"0\r\n\r\n")


def main(argv: list[str] | None = None) -> int:
    """Serve the default policy until SIGINT/SIGTERM (``python -m tests.support.openai_stub``)."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.openai_stub",
        description="Offline OpenAI-compatible chat-completions stub (loopback only).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to bind")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument(
        "--latency-ms", type=float, default=0.0, help="fixed delay added before every response"
    )
    args = parser.parse_args(argv)
    try:
        _validate_loopback(args.host)
    except ValueError as exc:
        parser.error(str(exc))

    done = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    with OpenAIStub(latency=args.latency_ms / 1000, host=args.host, port=args.port) as stub:
        print(f"OPENAI_BASE_URL={stub.base_url}", flush=True)
        # A timed wait keeps the main thread responsive to signals.
        while not done.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

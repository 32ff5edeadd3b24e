"""ClickHouse's HTTP interface in front of this process's chdb engine, for the wire tests.

No ClickHouse server runs here; this front lets clickhouse-connect's real HTTP client (the
`clickhouse://` transport) reach a real ClickHouse engine: each request's URL settings
are applied with SET on a chdb connection of its own, `param_*` become query parameters,
and the result goes back in the format the query names, errors as ClickHouse sends them
(status 500, `X-ClickHouse-Exception-Code`). What it does not do as a server would: it
ignores `query_id` (chdb cannot set one), so a KILL finds the query by `log_comment`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import chdb

from tests.support.clickhouse import chdb_folder

TRANSPORT = frozenset(
    """query query_id database session_id session_timeout session_check compress decompress
    wait_end_of_query client_protocol_version default_format enable_http_compression
    send_progress_in_http_headers http_headers_progress_interval_ms buffer_size role
    quota_key user password""".split()
)
_FORMAT = re.compile(r"\s+FORMAT\s+(\w+)\s*;?\s*$", re.IGNORECASE)
_CODE = re.compile(r"Code: (\d+)")


class _Handler(BaseHTTPRequestHandler):
    requests: list[dict[str, str]]

    def do_GET(self) -> None:
        self._answer(b"")

    def do_POST(self) -> None:
        self._answer(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _answer(self, body: bytes) -> None:
        params = dict(parse_qsl(urlsplit(self.path).query, keep_blank_values=True))
        self.server.requests.append(params)  # type: ignore[attr-defined]
        sql = (params.get("query", "") + "\n" + body.decode()).strip()
        found = _FORMAT.search(sql)
        fmt = found.group(1) if found else "TabSeparated"
        sql = sql[: found.start()] if found else sql
        settings = {k: v for k, v in params.items() if k not in TRANSPORT}
        settings = {k: v for k, v in settings.items() if not k.startswith("param_")}
        bound = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        connection = chdb.connect(str(chdb_folder()))
        try:
            if params.get("database"):
                connection.query(f"USE `{params['database']}`")
            # readonly last: once set, only it may not change.
            for name in sorted(settings, key=lambda key: key == "readonly"):
                value = settings[name].replace("\\", "\\\\").replace("'", "\\'")
                connection.query(f"SET {name} = '{value}'")
            data = connection.query(sql, fmt, params=bound).bytes()
        except Exception as exc:  # the engine's error, as a server sends it
            text = str(exc)
            text = text[text.find("Code: ") :] if "Code: " in text else text
            code = _CODE.search(text)
            self._send(
                500, text.encode(), {"X-ClickHouse-Exception-Code": code.group(1) if code else "1"}
            )
            return
        finally:
            connection.close()
        self._send(200, data, {"X-ClickHouse-Format": fmt, "X-ClickHouse-Timezone": "UTC"})

    def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(data))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_: object) -> None:
        return


@contextmanager
def chdb_over_http() -> Iterator[tuple[int, list[dict[str, str]]]]:
    """Serve this process's chdb engine over HTTP; give its port and the requests' params."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.requests = []  # type: ignore[attr-defined]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], server.requests  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()

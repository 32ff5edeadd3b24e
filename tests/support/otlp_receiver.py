"""A real OTLP/HTTP trace receiver on 127.0.0.1: decodes each ExportTraceServiceRequest."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as the collector got it: ids in hex, name, parent, attributes, links."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    attributes: dict[str, Any]
    service_name: str
    links: tuple[tuple[str, str], ...] = ()
    """The spans it links to, as (trace_id, span_id) in hex."""


class OTLPReceiver:
    """Collects the spans exporters POST to `{url}/v1/traces` (protobuf, maybe gzipped)."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver._add(request)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                return None

        return Handler

    def _add(self, request: ExportTraceServiceRequest) -> None:
        spans = []
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans.append(
                        ReceivedSpan(
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            name=span.name,
                            attributes={a.key: _value(a.value) for a in span.attributes},
                            service_name=str(resource.get("service.name", "")),
                            links=tuple((k.trace_id.hex(), k.span_id.hex()) for k in span.links),
                        )
                    )
        with self._lock:
            self.requests += 1
            self.spans.extend(spans)

    def of_trace(self, trace_id: str) -> list[ReceivedSpan]:
        """Return the spans received of one trace."""
        with self._lock:
            return [span for span in self.spans if span.trace_id == trace_id]


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


@contextmanager
def otlp_receiver() -> Iterator[OTLPReceiver]:
    """Run a receiver in a thread until the block ends."""
    receiver = OTLPReceiver()
    thread = threading.Thread(target=receiver._server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver._server.shutdown()
        receiver._server.server_close()


def main() -> None:
    """`python -m tests.support.otlp_receiver`: print OTLP_ENDPOINT=URL, receive until killed."""
    receiver = OTLPReceiver()
    print(f"OTLP_ENDPOINT={receiver.url}", flush=True)
    receiver._server.serve_forever()


if __name__ == "__main__":
    main()

"""The OpenAPI document (served at /openapi.json, with Swagger UI at /docs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from quart import Quart
from quart_schema import Info, OpenAPIProvider, QuartSchema, document_response

from app.schemas import ErrorEnvelope

T = TypeVar("T")

OPENAPI_INFO = Info(
    title="SQL ReAct agent service",
    version="0",
    description="Natural-language questions about a SQL database, answered by a LangGraph "
    "ReAct agent. Every JSON body and every SSE `data:` line is the envelope "
    "`{code, success, message, data}`.",
)


class EnvelopeOpenAPIProvider(OpenAPIProvider):
    """Documents the SSE stream as text/event-stream events, and bodiless responses as such."""

    def build_response_object(self, model: Any, headers_model: Any) -> tuple[dict, dict]:
        """Build the response object; SSE events carry the envelope as JSON in `data`."""
        response, definitions = super().build_response_object(model, headers_model)
        if getattr(model, "openapi_no_content", False):
            response.pop("content", None)
        elif getattr(model, "openapi_content_type", None) == "text/event-stream":
            envelope = response["content"]["application/json"]["schema"]
            response["content"] = {"text/event-stream": {"schema": sse_event_schema(envelope)}}
        elif getattr(model, "openapi_event_stream_alternative", False):
            response["content"]["text/event-stream"] = {
                "schema": {
                    "type": "string",
                    "description": "With `stream: true`: chunk events as `data:` lines, "
                    "then `data: [DONE]`.",
                }
            }
        return response, definitions


def sse_event_schema(envelope: dict[str, Any]) -> dict[str, Any]:
    """Return the schema of one Server-Sent Event whose `data` is the JSON `envelope`."""
    return {
        "type": "object",
        "description": "One event: `id: <run_id>:<seq>`, one `data:` line (the envelope, "
        "JSON); the first also has `retry:`. Comment lines (`: ping`) are heartbeats.",
        "required": ["data"],
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9a-f]+:[0-9]+$"},
            "event": {"type": "string"},
            "retry": {"type": "integer"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": envelope,
            },
        },
    }


def install_openapi(app: Quart) -> None:
    """Serve /openapi.json and /docs; keep the app's own JSON settings."""
    ensure_ascii, sort_keys = app.json.ensure_ascii, app.json.sort_keys  # type: ignore[attr-defined]
    QuartSchema(
        app,
        info=OPENAPI_INFO,
        openapi_provider_class=EnvelopeOpenAPIProvider,
        redoc_ui_path=None,
        scalar_ui_path=None,
    )
    app.json.ensure_ascii, app.json.sort_keys = ensure_ascii, sort_keys  # type: ignore[attr-defined]


def document_errors(*statuses: int) -> Callable[[T], T]:
    """Document that a route answers these statuses with the error envelope."""

    def decorator(func: T) -> T:
        for status in statuses:
            func = document_response(ErrorEnvelope, status)(func)
        return func

    return decorator

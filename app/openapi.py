"""The OpenAPI document (served at /openapi.json, with Swagger UI at /docs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from quart import Quart
from quart_schema import Info, OpenAPIProvider, QuartSchema, document_response

from app.schemas.base import ErrorEnvelope

T = TypeVar("T")

OPENAPI_INFO = Info(
    title="SQL ReAct agent service",
    version="0",
    description="Natural-language questions about a SQL database, answered by a LangGraph "
    "ReAct agent. Every JSON body and every SSE `data:` line is the envelope "
    "`{code, success, message, data}`.",
)


class EnvelopeOpenAPIProvider(OpenAPIProvider):
    """Documents the stream as SSE events and NDJSON lines, CSV files and bodiless responses."""

    def build_response_object(self, model: Any, headers_model: Any) -> tuple[dict, dict]:
        """Build the response object; SSE events carry the envelope as JSON in `data`.

        A stream is documented in both of its formats: text/event-stream and NDJSON.
        """
        response, definitions = super().build_response_object(model, headers_model)
        if getattr(model, "openapi_no_content", False):
            response.pop("content", None)
        elif getattr(model, "openapi_content_type", None) == "text/csv":
            response["content"] = {
                "text/csv": {"schema": {"type": "string", "description": model.__doc__}}
            }
        elif getattr(model, "openapi_content_type", None) == "text/event-stream":
            envelope = response["content"]["application/json"]["schema"]
            response["content"] = {
                "text/event-stream": {"schema": sse_event_schema(envelope)},
                "application/x-ndjson": {"schema": ndjson_line_schema(envelope)},
            }
        elif getattr(model, "openapi_csv_alternative", None):
            # `format=csv`: the same answer as a CSV file (e.g. GET /api/v0/audit).
            response["content"]["text/csv"] = {
                "schema": {"type": "string", "description": model.openapi_csv_alternative}
            }
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


def ndjson_line_schema(envelope: dict[str, Any]) -> dict[str, Any]:
    """Return the schema of one NDJSON line: the envelope with its event `id`, or a ping."""
    return {
        "description": "One JSON object per line (Accept: application/x-ndjson or "
        "?format=ndjson): the envelope plus `id` (`<run_id>:<seq>`, for Last-Event-ID); "
        '`{"type":"ping"}` lines are heartbeats.',
        "oneOf": [
            {
                "allOf": [envelope],
                "properties": {"id": {"type": "string", "pattern": "^[0-9a-f]+:[0-9]+$"}},
            },
            {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"const": "ping"}},
                "additionalProperties": False,
            },
        ],
    }


SWAGGER_UI_ASSETS = "/static/vendor/swagger-ui"
"""Swagger UI's script and style, vendored (see app/static/vendor/README.md): no CDN."""


def install_openapi(app: Quart) -> None:
    """Serve /openapi.json and /docs (with local Swagger UI assets); keep the JSON settings."""
    ensure_ascii, sort_keys = app.json.ensure_ascii, app.json.sort_keys  # type: ignore[attr-defined]
    app.config["QUART_SCHEMA_SWAGGER_JS_URL"] = f"{SWAGGER_UI_ASSETS}/swagger-ui-bundle.js"
    app.config["QUART_SCHEMA_SWAGGER_CSS_URL"] = f"{SWAGGER_UI_ASSETS}/swagger-ui.css"
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

"""The one error path: every error becomes the envelope, in the request's language."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from quart import Quart, Response, current_app, g, jsonify, request
from quart_schema import RequestSchemaValidationError
from werkzeug.exceptions import HTTPException

from app.http.envelope import error_envelope
from app.http.ids import describe_validation_error
from config import resolve_lang
from react_agent.errors import ServiceError

logger = logging.getLogger(__name__)

_HTTP_ERROR_TYPES = {
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    408: "REQUEST_TIMEOUT",
    413: "PAYLOAD_TOO_LARGE",
}


class ServiceErrorWithData(ServiceError):
    """A ServiceError whose envelope's `data` also carries `extra` fields (e.g. a report).

    Args:
        error: The error to report (status, code, detail, retry and message params).
        extra: The fields to add to the error envelope's `data`.

    """

    def __init__(self, error: ServiceError, extra: dict[str, Any]) -> None:
        super().__init__(
            error.status,
            error.error_type,
            error.detail,
            can_retry=error.can_retry,
            message_key=error.message_key,
            **error.params,
        )
        self.extra = extra


ErrorBody = Callable[[ServiceError], dict[str, Any]]
"""Makes the body of an error in a format of its own (OpenAI's on /v1/)."""
_ERROR_FORMATS = "error_formats"


def add_error_format(app: Quart, path_prefix: str, body_of: ErrorBody) -> None:
    """Have errors on paths under `path_prefix` answered with `body_of(error)`, not the envelope.

    A blueprint with a format of its own registers it (the OpenAI route does, for /v1/): the
    handlers stay one, for every path, so a 404 under the prefix is in its format too.
    """
    app.extensions.setdefault(_ERROR_FORMATS, []).append((path_prefix, body_of))


def request_lang() -> str:
    """Return the language of this request: validated `lang`, query `lang`, Accept-Language."""
    lang = getattr(g, "lang", None)
    if lang:
        return lang
    return resolve_lang(request.args.get("lang"), request.headers.get("Accept-Language"))


def error_response(error: ServiceError) -> Response:
    """Return the envelope response of `error` (or a format added for its path)."""
    g.error_type = error.error_type  # for the metrics' admission rejections
    for prefix, body_of in current_app.extensions.get(_ERROR_FORMATS, ()):
        if request.path.startswith(prefix):
            response = jsonify(body_of(error))
            response.status_code = error.status
            _add_retry_after(response, error)
            return response
    body = error_envelope(
        error,
        request_lang(),
        conversation_id=getattr(g, "conversation_id", None),
        legacy=getattr(g, "legacy_envelope", False),
        extra=error.extra if isinstance(error, ServiceErrorWithData) else None,
    )
    # Fields a route adds beside the envelope of any error it ends with (e.g. /health).
    body.update(getattr(g, "error_top_level_fields", {}))
    response = jsonify(body)
    response.status_code = error.status
    _add_retry_after(response, error)
    return response


def _add_retry_after(response: Response, error: ServiceError) -> None:
    if "retry_after" in error.params:  # e.g. 503 QUEUE_FULL, 429 QUOTA_EXCEEDED
        response.headers["Retry-After"] = str(error.params["retry_after"])


def register_error_handlers(app: Quart) -> None:
    """Turn ServiceError, HTTP errors and unexpected exceptions into envelopes."""

    @app.errorhandler(ServiceError)
    async def handle_service_error(error: ServiceError) -> Response:
        return error_response(error)

    @app.errorhandler(RequestSchemaValidationError)
    async def handle_schema_error(error: RequestSchemaValidationError) -> Response:
        detail = describe_validation_error(error.validation_error)
        return error_response(ServiceError(400, "INVALID_REQUEST", detail, reason=detail))

    @app.errorhandler(HTTPException)
    async def handle_http_error(error: HTTPException) -> Response:
        status = error.code or 500
        error_type = _HTTP_ERROR_TYPES.get(
            status, "INVALID_REQUEST" if status < 500 else "INTERNAL_ERROR"
        )
        detail = error.description or error.name
        # A body that came too slowly (408) may well come in time when sent again.
        return error_response(
            ServiceError(
                status,
                error_type,
                detail,
                can_retry=True if status == 408 else None,
                reason=detail,
            )
        )

    @app.errorhandler(Exception)
    async def handle_unexpected(error: Exception) -> Response:
        logger.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(
            ServiceError(500, "INTERNAL_ERROR", f"{type(error).__name__}: {error}", can_retry=True)
        )

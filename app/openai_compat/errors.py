"""Errors in OpenAI's format, `{"error": {"message", "type", "code"}}`, for the /v1 routes."""

from __future__ import annotations

from typing import Any

from react_agent.errors import ServiceError

OPENAI_PATH_PREFIX = "/v1/"
"""The paths of the OpenAI-compatible API, whose errors are in OpenAI's format."""

_TYPES_BY_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    408: "timeout_error",
    409: "conflict_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
}


def openai_error_body(error: ServiceError) -> dict[str, Any]:
    """Return the OpenAI error object of `error`; `code` is our UPPER_SNAKE code in lower case."""
    return {
        "error": {
            "message": error.detail,
            "type": _TYPES_BY_STATUS.get(error.status, "server_error"),
            "param": error.params.get("param"),
            "code": error.error_type.lower(),
        }
    }

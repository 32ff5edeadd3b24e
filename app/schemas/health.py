"""The answers of /health (liveness) and /ready (readiness, part by part)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.schemas.base import OpenModel


class HealthEnvelope(OpenModel):
    """The service's components; 503 (with the error fields) when it cannot answer."""

    code: int
    success: bool
    message: str
    data: dict[str, Any]
    status: Literal["healthy", "unhealthy"] = Field(
        description="Beside the envelope, for the replaced service's clients."
    )


class ReadyEnvelope(OpenModel):
    """Readiness, part by part; 503 (with the error fields) when a required part is down."""

    code: int
    success: bool
    message: str
    data: dict[str, Any] = Field(
        description="`ready`, and `parts`: data_database, checkpointer, agent (required), "
        "memory and model (reported only), each with `ok`, `required` and any `error_type`."
    )

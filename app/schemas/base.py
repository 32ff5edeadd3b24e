"""What every answer shares: models that may gain fields, and the error envelope."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class OpenModel(BaseModel):
    """A response model that may gain fields: clients must ignore unknown ones."""

    model_config = ConfigDict(extra="allow")


class ErrorData(OpenModel):
    """What went wrong."""

    error: str = Field(description="The detail, for developers and logs.")
    error_type: str = Field(description="A stable UPPER_SNAKE code, e.g. QUESTION_TOO_LONG.")
    can_retry: bool = Field(description="Whether the same request may succeed later.")
    timestamp: str
    conversation_id: str | None = None


class ErrorEnvelope(OpenModel):
    """An error: `code` is the HTTP status; the sync ask API also has the legacy `error`."""

    code: int = Field(ge=400, le=599)
    success: Literal[False]
    message: str = Field(description="A short sentence in the request's language.")
    data: ErrorData
    error: str | None = Field(
        default=None,
        description="Sync API only: data.error, or in zh-CN the replaced service's text for "
        "validation faults (several joined with '; ').",
    )

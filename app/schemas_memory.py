"""Response models of the feedback and training-data endpoints, for the OpenAPI document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


class _Open(BaseModel):
    # Responses may gain fields; clients must ignore unknown ones.
    model_config = ConfigDict(extra="allow")


class Pagination(_Open):
    """Where a page sits in the whole list."""

    page: int
    page_size: int
    total: int
    total_pages: int
    has_next: bool
    has_prev: bool


class PageData(_Open):
    """One page of records."""

    records: list[dict[str, Any]]
    pagination: Pagination


class PageEnvelope(_Open):
    """A page of ratings or of examples and notes."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: PageData


class FeedbackAdded(_Open):
    """The new rating's id."""

    feedback_id: int


class FeedbackAddedEnvelope(_Open):
    """A rating was stored."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: FeedbackAdded


class TrainingStats(_Open):
    """How many examples and notes there are, by type."""

    total_count: int
    type_breakdown: dict[str, int]


class TrainingStatsEnvelope(_Open):
    """The training data's statistics."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: TrainingStats


class MemoryEnvelope(_Open):
    """The result of a feedback or training-data operation."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: dict[str, Any]


def pagination(page: int, page_size: int, total: int) -> dict[str, Any]:
    """Return the old endpoints' `pagination` object."""
    total_pages = (total + page_size - 1) // page_size
    return {
        "page": page,
        "page_size": page_size,
        "total": total,
        "total_pages": total_pages,
        "has_next": page < total_pages,
        "has_prev": page > 1,
    }

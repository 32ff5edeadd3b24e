"""Response models of the feedback and training-data endpoints, for the OpenAPI document."""

from __future__ import annotations

from typing import Any, Literal

from app.schemas.base import OpenModel


class Pagination(OpenModel):
    """Where a page sits in the whole list."""

    page: int
    page_size: int
    total: int
    total_pages: int
    has_next: bool
    has_prev: bool


class PageData(OpenModel):
    """One page of records."""

    records: list[dict[str, Any]]
    pagination: Pagination


class PageEnvelope(OpenModel):
    """A page of ratings or of examples and notes."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: PageData


class FeedbackAdded(OpenModel):
    """The new rating's id."""

    feedback_id: int


class FeedbackAddedEnvelope(OpenModel):
    """A rating was stored."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: FeedbackAdded


class TrainingStats(OpenModel):
    """How many examples and notes there are, by type."""

    total_count: int
    type_breakdown: dict[str, int]


class TrainingStatsEnvelope(OpenModel):
    """The training data's statistics."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: TrainingStats


class MemoryEnvelope(OpenModel):
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

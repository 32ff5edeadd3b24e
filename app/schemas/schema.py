"""Response models of the schema endpoints, for the OpenAPI document."""

from __future__ import annotations

from typing import Any, Literal

from app.schemas.base import OpenModel


class SchemaColumn(OpenModel):
    """A column as the caller sees it."""

    name: str
    type: str
    description: str | None
    synonyms: list[str]


class SchemaTable(OpenModel):
    """A table the caller may read."""

    name: str
    description: str | None
    row_count: int | None
    columns: list[SchemaColumn]


class SchemaMetric(OpenModel):
    """A business metric of the semantic file."""

    name: str
    sql: str
    description: str | None


class SchemaData(OpenModel):
    """The catalogue: `building` (empty) until the first build is there."""

    status: Literal["building", "ready"]
    built_at: str | None
    tables: list[SchemaTable]
    metrics: list[SchemaMetric]


class SchemaEnvelope(OpenModel):
    """GET /api/v0/schema."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: SchemaData


class SchemaRefreshEnvelope(OpenModel):
    """POST /api/v0/schema/refresh: the new build's size, the file's problems, the drift."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: dict[str, Any]

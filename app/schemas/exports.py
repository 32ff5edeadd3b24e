"""The CSV export's response, for the OpenAPI document."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel


class CsvFile(BaseModel):
    """A CSV file: UTF-8 with a BOM, a header line, then the rows (RFC 4180, CRLF)."""

    openapi_content_type: ClassVar[str] = "text/csv"

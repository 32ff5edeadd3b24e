"""Response models of the datasets endpoints, for the OpenAPI document."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.http.ids import MAX_USER_ID_CHARS
from app.schemas.base import OpenModel


class DatasetQuery(BaseModel):
    """Query of the datasets endpoints: whose datasets."""

    # Its rules are checked by check_user_id, with the ask endpoints' own error codes.
    user_id: str | None = Field(
        default=None,
        description="The datasets' owner (at most 50 characters); default guest.",
        json_schema_extra={"maxLength": MAX_USER_ID_CHARS},
    )


class DatasetUpdateQuery(DatasetQuery):
    """Query of PUT /api/v0/datasets/{dataset_id}: whose, and how the file changes it."""

    mode: Literal["replace", "append"] = Field(
        default="replace",
        description="replace: the upload becomes the dataset's file; append: its rows are "
        "added (CSV or TSV, the same header). Either keeps every table and column.",
    )


class DatasetTable(OpenModel):
    """One table of a dataset: a file, or a sheet of a workbook."""

    name: str
    columns: list[str]
    row_count: int | None


class DatasetData(OpenModel):
    """An uploaded dataset."""

    dataset_id: str
    name: str
    tables: list[DatasetTable]
    size_bytes: int
    created_at: str


class DatasetEnvelope(OpenModel):
    """The dataset just uploaded."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: DatasetData


class DatasetList(OpenModel):
    """A user's datasets, newest first."""

    user_id: str
    datasets: list[DatasetData]


class DatasetListEnvelope(OpenModel):
    """A user's datasets."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: DatasetList


class DeletedDataset(OpenModel):
    """The dataset that was deleted."""

    dataset_id: str
    deleted: bool


class DeletedDatasetEnvelope(OpenModel):
    """A dataset deleted."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: DeletedDataset

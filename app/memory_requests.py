"""Request bodies of the feedback and training-data endpoints (the old service's fields)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator
from quart import g

from app.http.app_state import agent_service
from app.http.errors import request_lang
from app.http.ids import MAX_THREAD_ID_CHARS, MAX_USER_ID_CHARS
from react_agent.errors import bad_request
from react_agent.memory.curation.items import MAX_CONTENT_CHARS, MAX_QUESTION_CHARS
from react_agent.memory.feedback import MAX_REASON_CHARS
from react_agent.memory.store import Memory

Model = TypeVar("Model", bound=BaseModel)

MAX_BATCH_ITEMS = 50
MAX_IDS = 1000
SortOrder = Literal["asc", "desc"]
TrainingDataType = Literal["sql", "error_sql", "documentation", "ddl"]
RowId = Annotated[int, Field(ge=1, le=2**63 - 1)]


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def parse_body(model: type[Model], payload: Any) -> Model:
    """Validate `payload` as `model`, or raise a 400 naming each broken field."""
    if _has_nul(payload):
        # Neither database stores NUL in text faithfully (PostgreSQL refuses it).
        detail = "text must not contain NUL characters"
        raise bad_request("INVALID_REQUEST", detail, reason=detail)
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        detail = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}"
            for error in exc.errors()
        )
        raise bad_request("INVALID_REQUEST", detail, reason=detail) from exc


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    @field_validator("sort_order", mode="before", check_fields=False)
    @classmethod
    def _lower_case_order(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value


class Page(_Body):
    """Which page of a list: `page` from 1, `page_size` 1–100."""

    page: int = Field(default=1, ge=1, le=1_000_000, description="Page number, from 1.")
    page_size: int = Field(default=20, ge=1, le=100, description="Records per page (1–100).")
    sort_order: SortOrder = "desc"


def _blank_reason_is_none(value: str | None) -> str | None:
    return value or None  # "" (or only spaces, already stripped) says no more than none


Reason = Annotated[
    str | None,
    Field(
        default=None,
        max_length=MAX_REASON_CHARS,
        description=f"Why the answer was rated so (the page asks after a thumbs-down); "
        f"at most {MAX_REASON_CHARS} characters.",
        examples=["SQL 不对：少了退货的订单"],
    ),
    AfterValidator(_blank_reason_is_none),
]


class FeedbackAddBody(_Body):
    """A rating of one answer."""

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    sql: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    is_thumb_up: bool
    reason: Reason = None
    user_id: str = Field(default="guest", min_length=1, max_length=MAX_USER_ID_CHARS)
    thread_id: str | None = Field(
        default=None,
        max_length=MAX_THREAD_ID_CHARS,
        description="The conversation of the rated answer; must belong to user_id.",
    )
    run_id: str | None = Field(default=None, max_length=128, description="The rated run.")


class FeedbackQueryBody(Page):
    """The old feedback query: filters, sorting and a page."""

    is_thumb_up: bool | None = None
    is_in_training_data: bool | None = None
    create_time_start: str | None = Field(default=None, max_length=32, examples=["2025-01-01"])
    create_time_end: str | None = Field(default=None, max_length=32, examples=["2025-12-31"])
    user_id: str | None = Field(default=None, max_length=MAX_USER_ID_CHARS)
    sort_by: Literal[
        "id",
        "create_time",
        "update_time",
        "question",
        "user_id",
        "is_thumb_up",
        "is_in_training_data",
    ] = "create_time"


class FeedbackUpdateBody(_Body):
    """The fields of a rating to change (at least one)."""

    question: str | None = Field(default=None, min_length=1, max_length=MAX_QUESTION_CHARS)
    sql: str | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_CHARS)
    is_thumb_up: bool | None = None
    reason: Reason = None
    user_id: str | None = Field(default=None, min_length=1, max_length=MAX_USER_ID_CHARS)
    is_in_training_data: bool | None = None


class OwnerQuery(BaseModel):
    """Whose rating it must be, when the caller says so."""

    user_id: str | None = Field(
        default=None,
        max_length=MAX_USER_ID_CHARS,
        description="Refuse unless the rating is theirs.",
    )


class AddToTrainingBody(_Body):
    """The ratings to move into the examples."""

    feedback_ids: list[RowId] = Field(min_length=1, max_length=MAX_IDS)


class TrainingItem(BaseModel):
    """One example or note; which fields count depends on `training_data_type`."""

    model_config = ConfigDict(extra="allow")

    training_data_type: TrainingDataType
    question: str | None = Field(default=None, description="sql, error_sql: the question.")
    sql: str | None = Field(default=None, description="sql, error_sql: its SQL (a SELECT).")
    content: str | None = Field(default=None, description="documentation: the note.")
    ddl: str | None = Field(default=None, description="ddl: kept as a schema note.")


class TrainingCreateBody(_Body):
    """One item, or a batch of up to 50."""

    data: TrainingItem | list[TrainingItem]

    @field_validator("data")
    @classmethod
    def _batch_size(cls, value: Any) -> Any:
        if isinstance(value, list) and not 1 <= len(value) <= MAX_BATCH_ITEMS:
            raise ValueError(f"a batch has 1 to {MAX_BATCH_ITEMS} items, not {len(value)}")
        return value


class TrainingQueryBody(Page):
    """A page of examples and notes."""

    training_data_type: TrainingDataType | None = None
    status: Literal["proposed", "verified", "rejected"] | None = None
    search_keyword: str | None = Field(default=None, max_length=100)
    sort_by: Literal["created_at", "updated_at", "training_data_type", "question", "id"] = (
        "created_at"
    )


class TrainingUpdateBody(TrainingItem):
    """An item's new type and fields, or its new review status, or both, by id."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=200)
    training_data_type: TrainingDataType | None = None  # type: ignore[assignment]
    status: Literal["proposed", "verified", "rejected"] | None = Field(
        default=None,
        description="The review status an admin sets: only verified (and rejected, served as "
        "error_sql) examples are put in front of the model.",
    )


class TrainingDeleteBody(_Body):
    """The items to delete; `confirm` must be true."""

    ids: list[str | int] = Field(min_length=1, max_length=MAX_IDS)
    confirm: bool = Field(default=False, description="Must be true, or nothing is deleted.")


def open_memory_of_app() -> Memory:
    """Return the memory, or raise the 503 that says why it is not open."""
    g.lang = request_lang()
    return agent_service().require_memory()


def data_dialect() -> str:
    """Return the data database's dialect, which examples' SQL is checked in."""
    database = agent_service().database
    return database.dialect if database is not None else "sqlite"

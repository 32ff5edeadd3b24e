"""The body of a person's decision on waiting SQL, or answer to a clarifying question."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

MAX_RESUME_SQL_CHARS = 20000
MAX_RESUME_COMMENT_CHARS = 2000
MAX_RESUME_TEXT_CHARS = 2000


class ResumeDecisionBody(BaseModel):
    """A person's answer to the pause a conversation waits at (SQL approval or question)."""

    model_config = ConfigDict(extra="forbid")

    interrupt_id: StrictStr = Field(
        min_length=1, description="The `interrupt_id` of the interrupt event being answered."
    )
    action: Literal["approve", "edit", "reject", "answer"] = Field(
        description="approve: run the SQL; edit: run `sql` instead; reject: do not run it; "
        "answer: reply `text` to a clarifying question."
    )
    sql: StrictStr | None = Field(
        default=None, max_length=MAX_RESUME_SQL_CHARS, description="The edited SQL (edit only)."
    )
    comment: StrictStr | None = Field(
        default=None,
        max_length=MAX_RESUME_COMMENT_CHARS,
        description="Why, for the model to read (mostly with reject).",
    )
    text: StrictStr | None = Field(
        default=None,
        max_length=MAX_RESUME_TEXT_CHARS,
        description="The answer to a clarifying question (answer only).",
    )

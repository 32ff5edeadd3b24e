"""The body of a person's decision on the SQL a conversation waits to have approved."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

MAX_RESUME_SQL_CHARS = 20000
MAX_RESUME_COMMENT_CHARS = 2000


class ResumeDecisionBody(BaseModel):
    """A person's answer to the SQL approval a conversation waits for."""

    model_config = ConfigDict(extra="forbid")

    interrupt_id: StrictStr = Field(
        min_length=1, description="The `interrupt_id` of the interrupt event being answered."
    )
    action: Literal["approve", "edit", "reject"] = Field(
        description="approve: run the SQL; edit: run `sql` instead; reject: do not run it."
    )
    sql: StrictStr | None = Field(
        default=None, max_length=MAX_RESUME_SQL_CHARS, description="The edited SQL (edit only)."
    )
    comment: StrictStr | None = Field(
        default=None,
        max_length=MAX_RESUME_COMMENT_CHARS,
        description="Why, for the model to read (mostly with reject).",
    )

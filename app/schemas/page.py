"""Response models of what the page added: a renamed or deleted conversation, whoami."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.schemas.base import OpenModel


class EditedConversation(OpenModel):
    """The conversation a rename or a delete touched."""

    thread_id: str
    conversation_id: str
    user_id: str
    title: str | None = Field(default=None, description="The title now shown (rename only).")
    deleted: bool | None = Field(default=None, description="True after a delete.")


class EditedConversationEnvelope(OpenModel):
    """A renamed or deleted conversation in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: EditedConversation


class Whoami(OpenModel):
    """Whom the request's API key acts for."""

    keys_required: bool = Field(description="Whether the service needs an API key at all.")
    user_id: str | None = Field(description="The key's one bound user, else null.")
    users: list[str] | None = Field(description="The users the key may act for; null: any.")
    datasets: bool = Field(
        default=False, description="Whether the service takes uploads (DATASETS_ENABLED)."
    )


class WhoamiEnvelope(OpenModel):
    """Whoami in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: Whoami

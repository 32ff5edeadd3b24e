"""Settings of clarifying questions: whether the agent may pause to ask back, how often."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings


class ClarifySettings(BaseSettings):
    """Clarifying questions (ask_user) and suggested questions."""

    clarify: Literal["on", "request", "off"] = Field(
        default="request",
        description="Whether the agent may pause a question to ask back when it is ambiguous "
        "(the ask_user tool; the answer resumes it on every surface); when it may not, it "
        "states its assumption instead. request (the default): only when the request says "
        "`clarify: true`, as the page does unless its user turns it off, so clients that "
        "cannot answer are never left waiting; on: unless the request says "
        "`clarify: false`; off: never.",
    )
    clarify_max: int = Field(
        default=1,
        ge=1,
        le=5,
        description="Most clarifying questions the agent may ask for one question.",
    )

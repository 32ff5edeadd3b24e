"""Settings of the per-user quotas: questions per minute and model tokens per day."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings


class QuotaSettings(BaseSettings):
    """Per-user limits counted in the conversation database, so every worker agrees."""

    quota_questions_per_minute: int = Field(
        default=0,
        ge=0,
        description="Questions a user may ask per minute (UTC clock minute); more get 429 "
        "QUOTA_EXCEEDED with Retry-After. 0: no limit.",
    )
    quota_tokens_per_day: int = Field(
        default=0,
        ge=0,
        description="Model tokens a user's questions may use per UTC day; once reached, "
        "new questions get 429 until midnight UTC. 0: no limit.",
    )
    quota_tokens_reserve: int = Field(
        default=8000,
        ge=1,
        description="Under a token quota, the tokens each question holds from the day while "
        "it runs (given back when it ends, its real use counted): a question starts only "
        "while the tokens used plus those held are under the limit.",
    )

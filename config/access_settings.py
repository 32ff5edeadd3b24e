"""Settings of who may see what: the access policy file and the sensitive values' tokens."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings


class AccessSettings(BaseSettings):
    """The access policy (docs/security.md); unset, every caller may read everything."""

    policy_file: Path | None = Field(
        default=None,
        description="YAML policy of users, roles, row filters and column rules "
        "(docs/security.md; config/policy.sample.yaml). Unset: no policy, all may read all.",
    )
    policy_reload_settle_seconds: float = Field(
        default=5.0,
        ge=0,
        description="A changed POLICY_FILE that loosens the policy (a user removed, a table, "
        "filter or column rule given away) is applied only once its content stayed the same "
        "this long; until then the last good policy stays (/health: policy stale). Changes "
        "that only tighten apply at once. 0: every change at once.",
    )
    auth_trusted_gateway: bool = Field(
        default=False,
        description="A gateway in front of the service authenticates people and sets the "
        "request's user id: lets POLICY_FILE run without API_KEYS (otherwise start-up "
        "refuses, since any caller could claim any user id).",
    )
    access_token_key: SecretStr | None = Field(
        default=None,
        description="Key of the tokens that stand for sensitive values in what the model "
        "reads; unset, a random key per process (set it so every worker agrees).",
    )

    @field_validator("policy_file", mode="before")
    @classmethod
    def _blank_policy_is_unset(cls, value: object) -> object:
        # POLICY_FILE= in .env means "no policy", not the current directory.
        return None if isinstance(value, str) and not value.strip() else value

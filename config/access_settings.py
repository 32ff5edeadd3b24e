"""Settings of who may see what: the access policy file and the sensitive values' tokens."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings

DEFAULT_PORTS = {"http": 80, "https": 443}


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

    embed_origins: str = Field(
        default="",
        description="Sites whose pages may embed the chat component (<sql-agent-chat>, "
        "docs/embed.md): their origins (`https://portal.example.com`, scheme, host and port "
        "only), separated by commas or spaces. The component's script, the page's modules "
        "and the routes it calls answer these origins' cross-origin requests (CORS); "
        "preflights from any other origin get 403. Empty (the default): no site may.",
    )

    @field_validator("embed_origins")
    @classmethod
    def _origins_only(cls, value: str) -> str:
        return " ".join(normalized_origin(entry) for entry in value.replace(",", " ").split())

    @property
    def embed_origin_set(self) -> frozenset[str]:
        """EMBED_ORIGINS as the origins a browser sends (lower case, no default port)."""
        return frozenset(self.embed_origins.split())

    @field_validator("policy_file", mode="before")
    @classmethod
    def _blank_policy_is_unset(cls, value: object) -> object:
        # POLICY_FILE= in .env means "no policy", not the current directory.
        return None if isinstance(value, str) and not value.strip() else value


def normalized_origin(text: str) -> str:
    """Return `text` as a browser's Origin header writes it; ValueError if it is not one."""
    parts = urlsplit(text.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    if (
        scheme not in DEFAULT_PORTS
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
        or port == -1
    ):
        raise ValueError(
            f"{text!r} is not an origin: write scheme://host[:port], e.g. https://portal.example.com"
        )
    host = parts.hostname
    if ":" in host:
        host = f"[{host}]"  # IPv6, as the browser writes it
    keep_port = port is not None and port != DEFAULT_PORTS[scheme]
    return f"{scheme}://{host}:{port}" if keep_port else f"{scheme}://{host}"

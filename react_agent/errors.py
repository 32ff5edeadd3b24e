"""Typed errors with an HTTP-style status and a stable UPPER_SNAKE code (URL passwords masked)."""

from __future__ import annotations

import asyncio

import openai
import psycopg

from config.masking import mask_url_password


class ServiceError(Exception):
    """An error that ends a request with a status, a code and a human message.

    Args:
        status: The HTTP status the error maps to (400, 404, 409, 500, 503, 504).
        error_type: A stable UPPER_SNAKE code; also the key of its message in config.
        detail: What went wrong, for `data.error` (English, for logs and developers); a
            URL's password in it is masked here, so no response or log line shows one.
        can_retry: Whether sending the same request again later could succeed; by default
            true for 409, 503 and 504, as the API promises.
        message_key: The key of its message in config when not `error_type` (one code,
            several messages: FORBIDDEN for a user, FORBIDDEN_ADMIN_ONLY for admin routes).
        params: Values formatted into the localized message.

    """

    def __init__(
        self,
        status: int,
        error_type: str,
        detail: str,
        *,
        can_retry: bool | None = None,
        message_key: str | None = None,
        **params: object,
    ) -> None:
        detail = mask_url_password(detail)
        super().__init__(detail)
        self.status = status
        self.error_type = error_type
        self.message_key = message_key or error_type
        self.detail = detail
        self.can_retry = status in (409, 503, 504) if can_retry is None else can_retry
        self.params = params


class ConfigurationError(ServiceError):
    """A setting is wrong or missing: nothing changes until an operator changes it.

    Raised while the service opens, `python -m app` prints `detail` as its one line and
    exits 2; raised on a request, it is a 503 with `can_retry` false. `detail` names the
    setting (and the file and line where there is one) and says what to set.

    Args:
        setting: The environment variable to change, e.g. "POLICY_FILE".
        detail: The one line: the setting, what is wrong, what to set.
        error_type: The code clients see; CONFIGURATION_ERROR unless a more precise one
            exists (LLM_NOT_CONFIGURED).
        params: Values formatted into the localized message (`setting` is added).

    """

    def __init__(
        self,
        setting: str,
        detail: str,
        *,
        error_type: str = "CONFIGURATION_ERROR",
        **params: object,
    ) -> None:
        super().__init__(503, error_type, detail, can_retry=False, setting=setting, **params)
        self.setting = setting


def bad_request(error_type: str, detail: str, **params: object) -> ServiceError:
    """Return a 400 error for invalid input."""
    return ServiceError(400, error_type, detail, **params)


def classify_exception(exc: BaseException) -> ServiceError:
    """Turn an exception raised while answering into the ServiceError a client should see."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, openai.APITimeoutError | TimeoutError | asyncio.TimeoutError):
        return ServiceError(504, "LLM_TIMEOUT", f"model call timed out: {exc}", can_retry=True)
    if isinstance(exc, openai.RateLimitError):
        return ServiceError(503, "LLM_RATE_LIMITED", _api_detail(exc), can_retry=True)
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ServiceError(503, "LLM_AUTH_FAILED", _api_detail(exc))
    if isinstance(exc, openai.APIConnectionError):
        return ServiceError(503, "LLM_UNAVAILABLE", f"cannot reach the LLM: {exc}", can_retry=True)
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code >= 500:
            return ServiceError(503, "LLM_UNAVAILABLE", _api_detail(exc), can_retry=True)
        return ServiceError(503, "LLM_BAD_REQUEST", _api_detail(exc))
    if isinstance(exc, psycopg.OperationalError):  # includes psycopg_pool.PoolTimeout
        # The data database reports its outages as DATABASE_UNAVAILABLE itself, so a raw
        # one escaping a run comes from the checkpointer's PostgreSQL.
        return ServiceError(
            503,
            "CHECKPOINTER_UNAVAILABLE",
            f"PostgreSQL checkpointer is unavailable: {exc}",
            can_retry=True,
        )
    return ServiceError(500, "AGENT_FAILED", f"{type(exc).__name__}: {exc}", can_retry=True)


def _api_detail(exc: openai.APIStatusError) -> str:
    return f"LLM answered HTTP {exc.status_code}: {exc.message}"

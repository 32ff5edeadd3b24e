"""Suggested questions: starters for the empty page, follow-ups after an answer."""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import Blueprint
from quart_schema import document_response, validate_querystring

from app.asking.access import caller_user_id, request_actor
from app.http.app_state import agent_service, app_settings
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.openapi import document_errors
from app.schemas.base import OpenModel
from react_agent.guard.sql_guard import is_table_allowed
from react_agent.memory.suggestions import suggest_questions

blueprint = Blueprint("suggestions", __name__)

MAX_SUGGESTIONS = 20
MAX_AFTER_CHARS = 2000


class SuggestionsQuery(BaseModel):
    """What to suggest for."""

    after: str | None = Field(
        default=None,
        max_length=MAX_AFTER_CHARS,
        description="The last question asked: follow-ups nearest it (never it again).",
    )
    limit: int = Field(default=6, ge=1, le=MAX_SUGGESTIONS, description="How many at most.")
    user_id: str | None = Field(
        default=None, description="Who asks (default: the API key's one user, else guest)."
    )
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")


class Suggestion(OpenModel):
    """One suggested question and where it came from (memory: a stored example; sample)."""

    question: str
    source: str


class Suggestions(OpenModel):
    """The suggested questions, best first."""

    suggestions: list[Suggestion]


class SuggestionsEnvelope(OpenModel):
    """The suggestions in the envelope."""

    code: int
    success: bool
    message: str
    data: Suggestions


@blueprint.get("/api/v0/suggestions")
@validate_querystring(SuggestionsQuery)
@document_response(SuggestionsEnvelope, 200)
@document_errors(400, 401, 503)
async def suggestions(query_args: SuggestionsQuery) -> dict:
    """Suggest questions about what the caller may read, with no model call.

    From the stored examples' questions (nearest `after` for follow-ups), keeping those
    whose SQL reads only tables the caller may read (SQL_ALLOWED_TABLES and the access
    policy), then the embedded sample's starters.
    """
    lang = request_lang()
    service = agent_service()
    settings = app_settings()
    dialect = service.database.dialect if service.database is not None else "sqlite"
    _, scope = request_actor(service, caller_user_id(query_args.user_id))

    def readable(table: str) -> bool:
        allowed = is_table_allowed(table, dialect, settings.allowed_tables)
        return allowed and (scope is None or scope.can_read(table))

    found = await suggest_questions(
        service.memory if settings.memory else None,
        dialect=dialect,
        lang=lang,
        limit=query_args.limit,
        after=query_args.after,
        readable=readable,
        sample=settings.data_database_url is None and not settings.data_sources,
    )
    return success_envelope({"suggestions": found}, lang)

"""The old service's rating endpoints: add, query, update, delete, stats, add_to_training."""

from __future__ import annotations

from quart import Blueprint, g, request
from quart_schema import document_querystring, document_request, document_response

from app.http.app_state import agent_service, app_settings
from app.http.auth import owns, require_admin
from app.http.bodies import read_json_object
from app.http.envelope import success_envelope
from app.http.ids import check_thread_id_format, check_thread_owner
from app.memory_requests import (
    AddToTrainingBody,
    FeedbackAddBody,
    FeedbackQueryBody,
    FeedbackUpdateBody,
    OwnerQuery,
    data_dialect,
    open_memory_of_app,
    parse_body,
)
from app.openapi import document_errors
from app.schemas.memory import FeedbackAddedEnvelope, MemoryEnvelope, PageEnvelope, pagination
from react_agent.errors import ServiceError, bad_request
from react_agent.memory.curation.training import add_feedback_to_examples
from react_agent.memory.feedback import FeedbackFilter
from react_agent.memory.store import Memory

blueprint = Blueprint("feedback", __name__)


async def owned_feedback(memory: Memory, path_id: str) -> dict:
    """Return the rating: 404 if none (or not the key's user's), 403 if `?user_id=` differs."""
    feedback_id = int(path_id) if path_id.isascii() and path_id.isdigit() else None
    # Beyond a 64-bit id nothing can match (and PostgreSQL would refuse the number).
    record = await memory.feedback.get(feedback_id) if feedback_id and feedback_id < 2**63 else None
    # A key bound to users sees and changes only their ratings; another's is as missing.
    if record is None or not owns(record["user_id"]):
        raise ServiceError(404, "FEEDBACK_NOT_FOUND", f"no feedback with id {path_id[:40]}")
    owner = parse_body(OwnerQuery, request.args.to_dict()).user_id
    if owner is not None and record["user_id"] != owner:
        raise ServiceError(
            403, "FEEDBACK_NOT_OWNED", f"feedback {path_id} is not {owner}'s to change"
        )
    return record


@blueprint.post("/api/v0/qa_feedback/add")
@document_request(FeedbackAddBody)
@document_response(FeedbackAddedEnvelope, 200)
@document_errors(400, 413, 503)
async def add_feedback() -> dict:
    """Rate an answer: its question and SQL, thumb up or down; optionally why, its thread, run."""
    memory = open_memory_of_app()
    body = parse_body(FeedbackAddBody, await read_json_object(request))
    if body.thread_id is not None:
        check_thread_id_format(body.thread_id)
        check_thread_owner(body.thread_id, body.user_id)
    feedback_id = await memory.feedback.add(**body.model_dump())
    return success_envelope({"feedback_id": feedback_id}, g.lang)


@blueprint.post("/api/v0/qa_feedback/query")
@document_request(FeedbackQueryBody)
@document_response(PageEnvelope, 200)
@document_errors(400, 413, 503)
async def query_feedback() -> dict:
    """List ratings with the old filters, sorting and pagination."""
    memory = open_memory_of_app()
    body = parse_body(FeedbackQueryBody, await read_json_object(request, allow_empty=True))
    if body.user_id is None:
        require_admin()  # everyone's ratings; a key bound to users must name one of them
    filters = FeedbackFilter(
        is_thumb_up=body.is_thumb_up,
        is_in_training_data=body.is_in_training_data,
        create_time_start=body.create_time_start,
        create_time_end=body.create_time_end,
        user_id=body.user_id,
    )
    records, total = await memory.feedback.query(
        filters,
        page=body.page,
        page_size=body.page_size,
        sort_by=body.sort_by,
        sort_order=body.sort_order,
    )
    data = {"records": records, "pagination": pagination(body.page, body.page_size, total)}
    return success_envelope(data, g.lang)


@blueprint.put("/api/v0/qa_feedback/update/<feedback_id>")
@document_request(FeedbackUpdateBody)
@document_querystring(OwnerQuery)
@document_response(MemoryEnvelope, 200)
@document_errors(400, 403, 404, 413, 503)
async def update_feedback(feedback_id: str) -> dict:
    """Change a rating's question, SQL, thumb, reason, owner or training flag."""
    memory = open_memory_of_app()
    body = parse_body(FeedbackUpdateBody, await read_json_object(request))
    fields = body.model_dump(exclude_none=True)
    if not fields:
        detail = (
            "send at least one of question, sql, is_thumb_up, reason, user_id, is_in_training_data"
        )
        raise bad_request("INVALID_REQUEST", detail, reason=detail)
    record = await owned_feedback(memory, feedback_id)
    await memory.feedback.update(record["id"], fields)
    return success_envelope({"updated_id": record["id"], "updated_fields": list(fields)}, g.lang)


@blueprint.delete("/api/v0/qa_feedback/delete/<feedback_id>")
@document_querystring(OwnerQuery)
@document_response(MemoryEnvelope, 200)
@document_errors(400, 403, 404, 503)
async def delete_feedback(feedback_id: str) -> dict:
    """Delete a rating (the page's undo)."""
    memory = open_memory_of_app()
    record = await owned_feedback(memory, feedback_id)
    await memory.feedback.delete(record["id"])
    return success_envelope({"deleted_id": record["id"]}, g.lang)


@blueprint.get("/api/v0/qa_feedback/stats")
@document_response(MemoryEnvelope, 200)
@document_errors(503)
async def feedback_stats() -> dict:
    """Count ratings: all, up, down, moved into the examples and not."""
    require_admin()
    store = open_memory_of_app().feedback
    total = await store.count(FeedbackFilter())
    positive = await store.count(FeedbackFilter(is_thumb_up=True))
    trained = await store.count(FeedbackFilter(is_in_training_data=True))
    data = {
        "total_feedback": total,
        "positive_feedback": positive,
        "negative_feedback": total - positive,
        "trained_feedback": trained,
        "untrained_feedback": total - trained,
        "positive_rate": round(positive / max(total, 1) * 100, 2),
        "training_rate": round(trained / max(total, 1) * 100, 2),
    }
    return success_envelope(data, g.lang)


@blueprint.post("/api/v0/qa_feedback/add_to_training")
@document_request(AddToTrainingBody)
@document_response(MemoryEnvelope, 200)
@document_errors(400, 404, 413, 503)
async def add_to_training() -> dict:
    """Move ratings into the examples: up → example, down → known-wrong SQL; once each."""
    require_admin()
    memory = open_memory_of_app()
    body = parse_body(AddToTrainingBody, await read_json_object(request))
    settings = app_settings()
    data = await add_feedback_to_examples(
        memory,
        body.feedback_ids,
        dialect=data_dialect(),
        allowed_tables=settings.allowed_tables,
        database=agent_service().database,
        status=settings.memory_feedback_status,
        timeout=settings.sql_timeout,
    )
    return success_envelope(data, g.lang)

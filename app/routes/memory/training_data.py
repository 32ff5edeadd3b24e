"""The old service's training-data endpoints, over the memory's examples and notes."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, g, request
from quart_schema import document_request, document_response

from app.http.app_state import app_settings
from app.http.auth import require_admin
from app.http.bodies import read_json_object
from app.http.envelope import success_envelope
from app.memory_requests import (
    TrainingCreateBody,
    TrainingDeleteBody,
    TrainingQueryBody,
    TrainingUpdateBody,
    data_dialect,
    open_memory_of_app,
    parse_body,
)
from app.openapi import document_errors
from app.schemas.memory import MemoryEnvelope, PageEnvelope, TrainingStatsEnvelope, pagination
from react_agent.errors import ServiceError, bad_request
from react_agent.memory.curation.items import CheckedItem, check_item
from react_agent.memory.curation.verification import reviewed_type
from react_agent.memory.store import Memory

blueprint = Blueprint("training_data", __name__)


def check_fields(fields: dict[str, Any]) -> CheckedItem:
    """Check an item's fields for its type, its SQL through the guard (400 if refused)."""
    settings = app_settings()
    return check_item(fields, data_dialect(), settings.allowed_tables)


async def store_item(memory: Memory, fields: dict[str, Any]) -> dict[str, Any]:
    """Check and store one item; return its id and type."""
    item = check_fields(fields)
    stored = await memory.examples.add(item.training_data_type, item.question, item.content)
    return {"training_id": stored.id, "training_data_type": stored.training_data_type}


@blueprint.post("/api/v0/training_data/create")
@document_request(TrainingCreateBody)
@document_response(MemoryEnvelope, 200)
@document_errors(400, 413, 503)
async def create_training_data() -> dict:
    """Store one example or note, or a batch of up to 50 (each reported on its own)."""
    require_admin()
    memory = open_memory_of_app()
    body = parse_body(TrainingCreateBody, await read_json_object(request))
    if not isinstance(body.data, list):
        stored = await store_item(memory, body.data.model_dump(exclude_none=True))
        data = {"total_requested": 1, "successful_count": 1, "failed_count": 0, **stored}
        return success_envelope(data, g.lang)
    results = []
    for index, item in enumerate(body.data):
        try:
            stored = await store_item(memory, item.model_dump(exclude_none=True))
            results.append({"index": index, "success": True, **stored})
        except ServiceError as exc:
            results.append(
                {
                    "index": index,
                    "success": False,
                    "training_data_type": item.training_data_type,
                    "error": exc.detail,
                    "error_type": exc.error_type,
                }
            )
    successful = sum(result["success"] for result in results)
    data = {
        "total_requested": len(results),
        "successful_count": successful,
        "failed_count": len(results) - successful,
        "results": results,
    }
    return success_envelope(data, g.lang)


@blueprint.post("/api/v0/training_data/query")
@document_request(TrainingQueryBody)
@document_response(PageEnvelope, 200)
@document_errors(400, 413, 503)
async def query_training_data() -> dict:
    """List examples and notes, by type and keyword, a page at a time."""
    require_admin()
    memory = open_memory_of_app()
    body = parse_body(TrainingQueryBody, await read_json_object(request, allow_empty=True))
    items, total = await memory.examples.query(
        page=body.page,
        page_size=body.page_size,
        training_data_type=body.training_data_type,
        search_keyword=(body.search_keyword or "").strip() or None,
        status=body.status,
        sort_by=body.sort_by,
        sort_order=body.sort_order,
    )
    data = {
        "records": [item.as_record() for item in items],
        "pagination": pagination(body.page, body.page_size, total),
        "filters_applied": {
            "training_data_type": body.training_data_type,
            "search_keyword": body.search_keyword,
            "status": body.status,
        },
    }
    return success_envelope(data, g.lang)


@blueprint.post("/api/v0/training_data/update")
@document_request(TrainingUpdateBody)
@document_response(MemoryEnvelope, 200)
@document_errors(400, 404, 413, 503)
async def update_training_data() -> dict:
    """Replace an item's type and fields (checked as when created), or set its `status`.

    `{"id": …, "status": "verified"}` alone reviews an item; a rejected example becomes an
    error_sql negative. With fields as well, the fields are replaced first.
    """
    require_admin()
    memory = open_memory_of_app()
    body = parse_body(TrainingUpdateBody, await read_json_object(request))
    if body.training_data_type is None and body.status is None:
        raise bad_request("INVALID_REQUEST", "send training_data_type and its fields, or status")
    if body.training_data_type is not None:
        item = check_fields(body.model_dump(exclude_none=True, exclude={"status"}))
        if not await memory.examples.update(
            body.id, item.training_data_type, item.question, item.content
        ):
            raise not_found(body.id)
    if body.status is not None:
        await review_item(memory, body.id, body.status)
    stored = await memory.examples.get(body.id)
    if stored is None:
        raise not_found(body.id)
    data = {
        "updated_id": body.id,
        "training_data_type": stored.training_data_type,
        "status": stored.status,
    }
    return success_envelope(data, g.lang)


def not_found(item_id: str) -> ServiceError:
    """Return the 404 of an unknown item."""
    return ServiceError(404, "TRAINING_DATA_NOT_FOUND", f"no training data with id {item_id}")


async def review_item(memory: Memory, item_id: str, status: str) -> None:
    """Set an item's review status (a rejected example becomes error_sql)."""
    item = await memory.examples.get(item_id)
    if item is None:
        raise not_found(item_id)
    await memory.examples.set_status(item_id, status, reviewed_type(item, status))


@blueprint.post("/api/v0/training_data/delete")
@document_request(TrainingDeleteBody)
@document_response(MemoryEnvelope, 200)
@document_errors(400, 404, 413, 503)
async def delete_training_data() -> dict:
    """Delete items by id; `confirm: true` is required. 404 when none of them exists."""
    require_admin()
    memory = open_memory_of_app()
    body = parse_body(TrainingDeleteBody, await read_json_object(request))
    if not body.confirm:
        raise bad_request("CONFIRM_REQUIRED", "set confirm to true to delete training data")
    ids = [str(item_id) for item_id in dict.fromkeys(body.ids)]
    deleted = await memory.examples.delete(ids)
    if not deleted:
        raise ServiceError(404, "TRAINING_DATA_NOT_FOUND", f"no training data with ids {ids}")
    failed = [item_id for item_id in ids if item_id not in deleted]
    data = {
        "total_requested": len(ids),
        "deleted_count": len(deleted),
        "failed_count": len(failed),
        "deleted_ids": deleted,
        "failed_ids": failed,
    }
    return success_envelope(data, g.lang)


@blueprint.get("/api/v0/training_data/stats")
@document_response(TrainingStatsEnvelope, 200)
@document_errors(503)
async def training_data_stats() -> dict:
    """Count the examples and notes, by type."""
    require_admin()
    examples = open_memory_of_app().examples
    breakdown = await examples.count_by_type()
    total = sum(breakdown.values())
    data = {
        "total_count": total,
        "type_breakdown": breakdown,
        "type_percentages": {
            kind: round(count / max(total, 1) * 100, 2) for kind, count in breakdown.items()
        },
        "last_updated": await examples.last_updated(),
        "status_breakdown": await examples.count_by_status(),
    }
    return success_envelope(data, g.lang)

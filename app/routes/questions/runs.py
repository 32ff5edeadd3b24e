"""Runs by id: cancel a streamed run from any worker."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from quart import Blueprint, request
from quart_schema import document_querystring, document_request, document_response

from app.http.app_state import stream_runs
from app.http.auth import owns
from app.http.bodies import optional_json_object
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.http.ids import MAX_USER_ID_CHARS, check_user_id
from app.openapi import document_errors
from react_agent.errors import ServiceError, bad_request
from react_agent.runs.store.events import RUNNING

blueprint = Blueprint("runs", __name__)


class CancelBody(BaseModel):
    """Who asks for the cancellation (in the JSON body or the query string)."""

    user_id: str | None = Field(
        default=None,
        description="The run's owner: the user_id of the stream that started it.",
        json_schema_extra={"maxLength": MAX_USER_ID_CHARS},
    )


class CancelledRun(BaseModel):
    """What became of the run."""

    model_config = ConfigDict(extra="allow")

    run_id: str
    thread_id: str
    status: Literal["cancelling", "finished", "abandoned"] = Field(
        description="cancelling: the run is being stopped (its stream ends with an `error` "
        "RUN_CANCELLED, then `end`); finished or abandoned: it had ended already."
    )


class CancelEnvelope(BaseModel):
    """The cancellation in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: CancelledRun


@blueprint.post("/api/v0/react/runs/<run_id>/cancel")
@document_request(CancelBody)
@document_querystring(CancelBody)
@document_response(CancelEnvelope, 200)
@document_errors(400, 404, 503)
async def cancel_run(run_id: str) -> dict:
    """Stop a streamed run (its model call and any running SQL), from any worker.

    The run id is the part of the stream's event ids before ':'. Only the user who
    started the run may cancel it; any other user_id (or a key not bound to the run's
    user) gets 404, as an unknown run does.
    """
    body = await optional_json_object(request)
    user_id = (body.get("user_id") if body is not None else None) or request.args.get("user_id")
    if not isinstance(user_id, str) or not user_id.strip():
        raise bad_request("USER_ID_REQUIRED", "user_id is required: the owner of the run")
    user_id = check_user_id(user_id.strip())
    runs = stream_runs()
    record = await runs.store.record(run_id)
    if record is None or not owns(record.user_id, user_id):
        raise ServiceError(404, "RUN_NOT_FOUND", f"no run {run_id} of user {user_id}")
    status = record.status
    if status == RUNNING:
        await runs.store.request_cancel(run_id)
        status = "cancelling"
    data = {"run_id": run_id, "thread_id": record.thread_id, "status": status}
    return success_envelope(data, request_lang())

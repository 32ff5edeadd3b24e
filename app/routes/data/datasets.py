"""Datasets: a user's own uploaded files (CSV, TSV, JSON lines, Parquet, Excel) to ask about."""

from __future__ import annotations

from quart import Blueprint, g, request
from quart_schema import document_response, validate_querystring
from werkzeug.exceptions import RequestEntityTooLarge

from app.http.app_state import agent_service
from app.http.auth import authorize_user
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.http.ids import GUEST_USER_ID, check_user_id
from app.openapi import document_errors
from app.schemas.datasets import (
    DatasetEnvelope,
    DatasetListEnvelope,
    DatasetQuery,
    DatasetUpdateQuery,
    DeletedDatasetEnvelope,
)
from react_agent.datasets.service import Datasets
from react_agent.errors import ServiceError

blueprint = Blueprint("datasets", __name__)


@blueprint.post("/api/v0/datasets")
@validate_querystring(DatasetQuery)
@document_response(DatasetEnvelope, 200)
@document_errors(400, 403, 404, 409, 413)
async def upload_dataset(query_args: DatasetQuery) -> dict:
    """Upload a file (multipart field `file`) as a dataset of `user_id` (query or form field).

    Its kind is read from its first bytes; each sheet or file becomes a table. Ask about it
    with `"dataset_id"` in an ask body.
    """
    g.lang = request_lang()
    user_id, content, filename = await _upload(query_args.user_id)
    dataset = await _datasets().create(user_id, filename, content)
    return success_envelope(dataset.as_data(), g.lang)


async def _upload(query_user_id: str | None) -> tuple[str, bytes, str]:
    """Return (user id, file content, file name) of a multipart upload, checked."""
    request.max_content_length = agent_service().settings.datasets_max_upload_bytes + 65536
    try:
        files, form = await request.files, await request.form
    except RequestEntityTooLarge as exc:
        raise _too_large() from exc
    # Whose it is first: a key bound to other users is 403 whether datasets are on or not.
    user_id = _user_id(form.get("user_id") or query_user_id)
    _datasets()
    upload = files.get("file")
    if upload is None:
        raise ServiceError(400, "INVALID_REQUEST", "send the file as multipart field 'file'")
    content = upload.read()
    if len(content) > agent_service().settings.datasets_max_upload_bytes:
        raise _too_large()
    return user_id, content, upload.filename or "data"


@blueprint.put("/api/v0/datasets/<dataset_id>")
@validate_querystring(DatasetUpdateQuery)
@document_response(DatasetEnvelope, 200)
@document_errors(400, 403, 404, 409, 413)
async def update_dataset(dataset_id: str, query_args: DatasetUpdateQuery) -> dict:
    """Replace a dataset's file, or append rows to it (multipart field `file`, ?mode=).

    The dataset keeps its id and every table and column it had, so its conversations and
    the memory examples that read it keep working; an update that would drop one is 409
    DATASET_INCOMPATIBLE and changes nothing.
    """
    g.lang = request_lang()
    user_id, content, filename = await _upload(query_args.user_id)
    dataset = await _datasets().update(user_id, dataset_id, filename, content, query_args.mode)
    return success_envelope(dataset.as_data(), g.lang)


@blueprint.get("/api/v0/datasets")
@validate_querystring(DatasetQuery)
@document_response(DatasetListEnvelope, 200)
@document_errors(400, 403, 404)
async def list_datasets(query_args: DatasetQuery) -> dict:
    """List the datasets of `user_id` (query), newest first."""
    g.lang = request_lang()
    user_id = _user_id(query_args.user_id)
    datasets = _datasets()
    found = [dataset.as_data() for dataset in datasets.list(user_id)]
    return success_envelope({"user_id": user_id, "datasets": found}, g.lang)


@blueprint.delete("/api/v0/datasets/<dataset_id>")
@validate_querystring(DatasetQuery)
@document_response(DeletedDatasetEnvelope, 200)
@document_errors(400, 403, 404)
async def delete_dataset(dataset_id: str, query_args: DatasetQuery) -> dict:
    """Delete one of the datasets of `user_id` (query); another user's is 404."""
    g.lang = request_lang()
    user_id = _user_id(query_args.user_id)
    await _datasets().delete(user_id, dataset_id)
    return success_envelope({"dataset_id": dataset_id, "deleted": True}, g.lang)


def _datasets() -> Datasets:
    datasets = agent_service().datasets
    if datasets is None:
        raise ServiceError(
            404, "DATASETS_DISABLED", "datasets are off (DATASETS_ENABLED)", can_retry=False
        )
    return datasets


def _user_id(given: str | None) -> str:
    user_id = given or GUEST_USER_ID
    authorize_user(check_user_id(user_id))
    return user_id


def _too_large() -> ServiceError:
    limit = agent_service().settings.datasets_max_upload_bytes
    return ServiceError(413, "PAYLOAD_TOO_LARGE", f"a dataset may have at most {limit} bytes")

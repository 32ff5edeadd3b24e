"""The schema catalogue: GET /api/v0/schema (what the caller may read) and its refresh."""

from __future__ import annotations

from quart import Blueprint
from quart_schema import document_response

from app.asking.access import caller_user_id, request_actor
from app.http.app_state import agent_service, app_settings
from app.http.auth import require_admin
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.openapi import document_errors
from app.schemas.schema import SchemaEnvelope, SchemaRefreshEnvelope
from react_agent.catalog.service import CatalogService
from react_agent.catalog.view import (
    ScopedReadable,
    TableAllowList,
    schema_data,
    visible_metrics,
    visible_tables,
)
from react_agent.errors import ServiceError
from react_agent.service.components import describe_catalog

blueprint = Blueprint("schema", __name__)


def _catalog() -> CatalogService:
    catalog = agent_service().catalog
    if catalog is None:
        raise ServiceError(
            404, "SCHEMA_CATALOG_OFF", "the schema catalogue is off (SCHEMA_CATALOG=false)"
        )
    return catalog


@blueprint.get("/api/v0/schema")
@document_response(SchemaEnvelope, 200)
@document_errors(404)
async def get_schema() -> dict:
    """Return the tables and columns the caller may read, with descriptions and metrics."""
    catalog = _catalog()
    snapshot = await catalog.current()
    if snapshot is None:
        return success_envelope(schema_data([], [], "building", None), request_lang())
    # SQL_ALLOWED_TABLES and the caller's access scope (its key's user, or guest).
    _, scope = request_actor(agent_service(), caller_user_id())
    readable = ScopedReadable(TableAllowList(app_settings().allowed_tables), scope)
    tables = visible_tables(snapshot.catalog, snapshot.semantics, readable)
    metrics = visible_metrics(snapshot.semantics, tables)
    data = schema_data(tables, metrics, "ready", snapshot.catalog.built_at)
    return success_envelope(data, request_lang())


@blueprint.post("/api/v0/schema/refresh")
@document_response(SchemaRefreshEnvelope, 200)
@document_errors(403, 404, 503)
async def refresh_schema() -> dict:
    """Introspect the data database again (admin keys), check drift, and say what was found."""
    require_admin()
    catalog = _catalog()
    try:
        await catalog.refresh(force=True)
    except ServiceError:
        raise
    except Exception as exc:
        raise ServiceError(
            503, "SCHEMA_REFRESH_FAILED", f"the schema could not be read: {exc}", can_retry=True
        ) from exc
    service = agent_service()
    if service.memory is not None:
        catalog.stale_examples = await service.memory.examples.count_stale()
    return success_envelope(describe_catalog(service), request_lang())

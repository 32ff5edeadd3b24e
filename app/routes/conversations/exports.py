"""CSV export: the full result of an earlier query of a conversation, as a download."""

from __future__ import annotations

import re

from quart import Blueprint, Response, g, request
from quart_schema import document_response, validate_querystring

from app.asking.accept import dataset_source
from app.asking.access import request_actor
from app.asking.quotas import admit_question
from app.asking.thread_access import ThreadQuery, owned_thread
from app.http.app_state import agent_service
from app.http.errors import request_lang
from app.openapi import document_errors
from app.schemas.exports import CsvFile
from react_agent.audit.exports import ExportAudit, audited_csv_export
from react_agent.databases.fair_share import ASKER
from react_agent.results.exports import recorded_sql
from react_agent.service.data_sources import conversation_source

blueprint = Blueprint("exports", __name__)


@blueprint.get("/api/v0/react/conversations/<thread_id>/results/<result_id>.csv")
@validate_querystring(ThreadQuery)
@document_response(CsvFile, 200)
@document_errors(400, 403, 404, 429, 500, 503)
async def export_result_csv(thread_id: str, result_id: str, query_args: ThreadQuery) -> Response:
    """Download a query result of the conversation as CSV (UTF-8 with BOM, for Excel).

    The query that made `result_id` runs again, read-only, through the SQL guard and
    under the access policy in force now, and its rows (up to EXPORT_ROW_LIMIT) stream
    out as they are read. It takes one question from the user's quota (429 beyond it)
    and writes one audit record (kind `export`).
    """
    g.lang = request_lang()
    owner = owned_thread(thread_id, query_args.user_id)
    service = agent_service()
    runner = service.require_runner()
    sql = await recorded_sql(runner, thread_id, result_id)
    settings = service.settings
    # The policy in force now, not the one of the question: access may have changed since.
    actor, scope = request_actor(service, owner)
    await admit_question(service, actor, scope)  # an export counts as a question
    # A conversation about a dataset exports from it (react_agent/datasets), as its
    # questions read it; ?dataset_id= still names one explicitly.
    dataset_id = request.args.get("dataset_id")
    database = await conversation_source(service, thread_id) or service.database
    if dataset_id is not None:
        database = await dataset_source(service, owner, dataset_id)
    ASKER.set(actor.user_id)  # the export's turn on a busy source is the asker's
    ledger = service.ledger
    audit = ExportAudit(ledger.writer if ledger is not None else None, actor, thread_id)
    chunks = await audited_csv_export(
        audit,
        database,
        sql,
        scope=scope,
        columns=service.columns,
        allowed_tables=settings.allowed_tables,
        max_rows=settings.export_row_limit,
        timeout=settings.sql_timeout,
    )
    response = Response(chunks, status=200, content_type="text/csv; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="{download_name(result_id)}"'
    response.headers["X-Export-Row-Limit"] = str(settings.export_row_limit)
    response.timeout = None  # a large export may take longer than Quart's response timeout
    return response


def download_name(result_id: str) -> str:
    """Return the file name of a result's CSV: `result-<id>.csv`, with only safe characters."""
    return "result-" + (re.sub(r"[^A-Za-z0-9_-]", "_", result_id)[:80] or "export") + ".csv"

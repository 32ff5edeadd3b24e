"""The audit trail: who ran (or was refused) which query, for the roles that may read it."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, Response, g
from quart_schema import document_response, validate_querystring

from app.asking.access import caller_user_id, request_actor
from app.http.app_state import agent_service
from app.http.auth import require_admin
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.openapi import document_errors
from app.schemas.audit import AuditEnvelope, AuditQuery
from app.schemas.memory import pagination
from react_agent.audit.records import COLUMNS, audit_csv
from react_agent.audit.store import AuditPage

blueprint = Blueprint("audit", __name__)


def require_audit_reader() -> None:
    """Raise 403 unless the caller may read the audit (a role with `audit`, or an admin key)."""
    _, scope = request_actor(agent_service(), caller_user_id())
    if scope is not None and scope.audit:
        return
    require_admin()


@blueprint.get("/api/v0/audit")
@validate_querystring(AuditQuery)
@document_response(AuditEnvelope, 200)
@document_errors(400, 401, 403)
async def read_audit(query_args: AuditQuery) -> dict[str, Any] | Response:
    """Return a page of audit records, newest first, filtered; `format=csv` as a file.

    Filters: `user`, `from` and `to` (ISO 8601), `outcome`, `table`; paging: `page`,
    `page_size` (1–100). For admin keys, and users whose role has `audit: true` in the
    access policy; anyone else gets 403.
    """
    g.lang = request_lang()
    require_audit_reader()
    ledger = agent_service().ledger
    if ledger is None:  # AUDIT off and no quota: there is no trail to read
        page = AuditPage([], 0)
    else:  # records kept while AUDIT was on stay readable after it is turned off
        page = await ledger.audit.search(
            query_args.audit_filter(), page=query_args.page, page_size=query_args.page_size
        )
    if query_args.format == "csv":
        response = Response(audit_csv(page.records), content_type="text/csv; charset=utf-8")
        response.headers["Content-Disposition"] = 'attachment; filename="audit.csv"'
        response.headers["X-Total-Count"] = str(page.total_count)
        return response
    data = {
        "records": page.records,
        "pagination": pagination(query_args.page, query_args.page_size, page.total_count),
        "columns": list(COLUMNS),
        "audit_enabled": ledger is not None and ledger.writer is not None,
    }
    return success_envelope(data, g.lang)

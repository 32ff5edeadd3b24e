"""Business instructions of the semantic file: list, add, edit (admin keys)."""

from __future__ import annotations

from datetime import date

from quart import Blueprint, request
from quart_schema import document_request, document_response

from app.http.app_state import agent_service, app_settings
from app.http.auth import require_admin
from app.http.bodies import read_json_object
from app.http.envelope import success_envelope
from app.http.errors import request_lang
from app.memory_requests import parse_body
from app.openapi import document_errors
from app.schemas.instructions import (
    InstructionBody,
    InstructionCreateBody,
    InstructionEnvelope,
    InstructionListEnvelope,
)
from react_agent.catalog.instructions import InstructionFile, instruction_from
from react_agent.catalog.semantic.model import Instruction
from react_agent.errors import ServiceError

blueprint = Blueprint("instructions", __name__)


def _file() -> InstructionFile:
    require_admin()
    catalog = agent_service().catalog
    if catalog is None:
        raise ServiceError(
            404, "SCHEMA_CATALOG_OFF", "the schema catalogue is off (SCHEMA_CATALOG=false)"
        )
    return InstructionFile(catalog)


def _as_of() -> date:
    return app_settings().instructions_as_of or date.today()


def _shown(rule: Instruction) -> dict:
    return {**rule.as_dict(), "tables": list(rule.tables), "in_force": rule.holds_on(_as_of())}


@blueprint.get("/api/v0/instructions")
@document_response(InstructionListEnvelope, 200)
@document_errors(403, 404, 409)
async def list_instructions() -> dict:
    """Return every instruction of the semantic file, each saying whether it holds today."""
    rules = _file().read()
    data = {"as_of": _as_of().isoformat(), "instructions": [_shown(rule) for rule in rules]}
    return success_envelope(data, request_lang())


@blueprint.post("/api/v0/instructions")
@document_request(InstructionCreateBody)
@document_response(InstructionEnvelope, 200)
@document_errors(400, 403, 404, 409, 503)
async def add_instruction() -> dict:
    """Add an instruction to the semantic file (checked against the catalogue first)."""
    instructions = _file()
    body = parse_body(InstructionCreateBody, await read_json_object(request))
    ident = body.id.strip()
    if not ident:
        raise ServiceError(400, "INSTRUCTION_INVALID", "id: a non-empty string is required")
    rule = await instructions.add(instruction_from(body.model_dump(), ident))
    return success_envelope(_shown(rule), request_lang())


@blueprint.put("/api/v0/instructions/<ident>")
@document_request(InstructionBody)
@document_response(InstructionEnvelope, 200)
@document_errors(400, 403, 404, 409, 503)
async def edit_instruction(ident: str) -> dict:
    """Replace an instruction's text, tables and dates (its id stays)."""
    instructions = _file()
    body = parse_body(InstructionBody, await read_json_object(request))
    rule = await instructions.edit(instruction_from(body.model_dump(), ident))
    return success_envelope(_shown(rule), request_lang())

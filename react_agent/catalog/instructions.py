"""The semantic file's business instructions, edited in place (the admin API's writes)."""

from __future__ import annotations

import os
import tempfile
from datetime import date
from pathlib import Path

import yaml

from react_agent.catalog.semantic.checks import check_semantics
from react_agent.catalog.semantic.model import Instruction, SemanticFileError
from react_agent.catalog.semantic.parsing import parse_semantics
from react_agent.catalog.service import CatalogService
from react_agent.errors import ServiceError, bad_request


def instruction_from(fields: dict[str, object], ident: str) -> Instruction:
    """Return the instruction a request body describes (its id given), or raise 400."""
    text = str(fields.get("text") or "").strip()
    if not text:
        raise _invalid("text: a non-empty string is required")
    tables = fields.get("tables") or []
    if not isinstance(tables, list) or not all(isinstance(t, str) and t for t in tables):
        raise _invalid("tables: a list of table names")
    bounds = [_day(fields.get(name), name) for name in ("valid_from", "valid_to")]
    if bounds[0] and bounds[1] and bounds[1] < bounds[0]:
        raise _invalid("valid_to: before valid_from")
    return Instruction(ident, text, tuple(tables), bounds[0], bounds[1])


def _day(value: object, name: str) -> date | None:
    if value in (None, ""):
        return None
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        raise _invalid(f"{name}: a date YYYY-MM-DD") from exc


def _invalid(reason: str) -> ServiceError:
    return bad_request("INSTRUCTION_INVALID", reason, reason=reason)


class InstructionFile:
    """Reads and writes the `instructions:` of SEMANTIC_FILE; the rest of it stays as written."""

    def __init__(self, catalog: CatalogService) -> None:
        if catalog.semantic_file is None:
            raise ServiceError(
                409, "SEMANTIC_FILE_UNSET", "instructions live in SEMANTIC_FILE, which is not set"
            )
        self.catalog = catalog
        self.path = Path(catalog.semantic_file)

    def read(self) -> tuple[Instruction, ...]:
        """Return the file's instructions as written now."""
        semantics, _ = parse_semantics(self._text(), self.path.name)
        return semantics.instructions

    async def add(self, rule: Instruction) -> Instruction:
        """Add `rule`; 409 INSTRUCTION_EXISTS when its id is taken."""
        rules = self.read()
        if any(known.id == rule.id for known in rules):
            raise ServiceError(409, "INSTRUCTION_EXISTS", f"instruction {rule.id!r} exists")
        await self._write((*rules, rule))
        return rule

    async def edit(self, rule: Instruction) -> Instruction:
        """Replace the instruction of `rule.id`; 404 INSTRUCTION_NOT_FOUND without one."""
        rules = self.read()
        if not any(known.id == rule.id for known in rules):
            raise ServiceError(404, "INSTRUCTION_NOT_FOUND", f"no instruction {rule.id!r}")
        await self._write(tuple(rule if known.id == rule.id else known for known in rules))
        return rule

    def _text(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ServiceError(
                503, "SEMANTIC_FILE_UNREADABLE", f"{self.path.name}: {exc.strerror or exc}"
            ) from exc

    async def _write(self, rules: tuple[Instruction, ...]) -> None:
        """Write `rules` as the file's instructions, checked first; then apply the file."""
        text = replace_instructions(self._text(), rules)
        try:
            semantics, lines = parse_semantics(text, self.path.name)
        except SemanticFileError as exc:
            raise _invalid("; ".join(exc.problems)) from exc
        snapshot = await self.catalog.current()
        if snapshot is None:  # unchecked, a wrong table name would switch the whole file off
            raise ServiceError(
                503, "SCHEMA_BUILDING", "the catalogue is being built; try again", can_retry=True
            )
        problems = check_semantics(semantics, lines, snapshot.catalog, self.path.name)
        if problems:
            raise _invalid("; ".join(problems))
        _write_atomically(self.path, text)
        self.catalog.reload_semantics()


def replace_instructions(text: str, rules: tuple[Instruction, ...]) -> str:
    """Return the file's text with its top-level `instructions:` block made of `rules`."""
    block = yaml.safe_dump(
        {"instructions": [rule.as_dict() for rule in rules]},
        allow_unicode=True,
        sort_keys=False,
        width=100,
    )
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    lines = text.splitlines(keepends=True)
    if isinstance(root, yaml.MappingNode):
        keys = [key for key, _ in root.value]
        for index, key in enumerate(keys):
            if key.value == "instructions":
                start = key.start_mark.line
                end = keys[index + 1].start_mark.line if index + 1 < len(keys) else len(lines)
                return "".join([*lines[:start], block, *lines[end:]])
    separator = "" if not text or text.endswith("\n") else "\n"
    return text + separator + block


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

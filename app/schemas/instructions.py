"""Request and response models of the business-instruction endpoints (admin keys)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.schemas.base import OpenModel


class InstructionBody(OpenModel):
    """An instruction as PUT sends it (the id is the path's)."""

    text: str = Field(description="The rule, in the words the model should follow.")
    tables: list[str] = Field(
        default_factory=list,
        description="Applies only to callers who may read all of these tables (none: all).",
    )
    valid_from: str | None = Field(default=None, description="First day in force, YYYY-MM-DD.")
    valid_to: str | None = Field(default=None, description="Last day in force, YYYY-MM-DD.")


class InstructionCreateBody(InstructionBody):
    """An instruction as POST sends it."""

    id: str = Field(description="Its id, cited in react_agent_meta.instructions.")


class Instruction(InstructionCreateBody):
    """An instruction of the semantic file."""

    in_force: bool = Field(description="Whether it holds on as_of.")


class InstructionList(OpenModel):
    """Every instruction of the semantic file, and which hold on as_of."""

    as_of: str = Field(description="The date in force (INSTRUCTIONS_AS_OF, else today).")
    instructions: list[Instruction]


class InstructionListEnvelope(OpenModel):
    """GET /api/v0/instructions."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: InstructionList


class InstructionEnvelope(OpenModel):
    """POST /api/v0/instructions and PUT /api/v0/instructions/{id}: the instruction stored."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: Instruction

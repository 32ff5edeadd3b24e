"""Settings of answer quality: the review of examples from feedback, and checked answers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings


class QualitySettings(BaseSettings):
    """How examples from feedback are reviewed and how answers are checked against rows."""

    memory_feedback_status: Literal["proposed", "verified"] = Field(
        default="proposed",
        description="Status of an example moved from feedback by add_to_training: proposed "
        "(not served until an admin sets verified through training_data/update; its SQL is "
        "run once and the result kept for the review) or verified (served at once, as before).",
    )
    answer_check: Literal["off", "on", "repair"] = Field(
        default="on",
        description="Match every number, date and named value of the final answer against "
        "the cells of the results the run read, and add answer_check to the final data "
        "(rules, no model call); off adds nothing. repair also gives an answer with "
        "unsupported figures one repair turn: the model is told which figures no row "
        "supports and answers again (it may query again); the new answer is checked and "
        "answer_check says repaired: true, with the first answer's figures in before. At "
        "most one repair turn per question (one more model call, and one per query round "
        "it runs), never a loop.",
    )
    sql_lint: Literal["off", "warn", "repair"] = Field(
        default="warn",
        description="Lint every statement run_sql ran, by named rules (no model call; "
        "docs/lint.md): a SUM or COUNT the joins multiply, LIMIT without ORDER BY for a "
        "top/latest question, NOT IN over a nullable column, integer division, a date in "
        "another format, a column outside GROUP BY, COUNT(column) counting rows. warn adds "
        "the warnings to the tool result the model reads and to react_agent_meta.lint; repair "
        "also tells the model to fix the first warned query of a question and run it again "
        "before answering (once per question; its warnings say repair: true); off adds "
        "nothing.",
    )

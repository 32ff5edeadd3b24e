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
    answer_candidates: Literal["off", "auto", "2", "3", "4", "5"] = Field(
        default="auto",
        description="Candidates that must agree (docs/candidates.md): besides the agent's own "
        "query, write N-1 more SQL candidates for the question in parallel (one request "
        "with n where the server honours it, else parallel calls), run each under the "
        "asker's scope and the SQL guard, and group their results by the evaluation's "
        "comparison; the majority answers and a split is said in the answer (or asked "
        "back when clarification is on). N (2-5): for every question whose answer rests "
        "on a query; auto: only when that query drew a lint warning, returned no rows, or "
        "the answer check found an unsupported figure (ANSWER_CANDIDATES_AUTO_COUNT "
        "candidates in all); off: never. Not for runs whose queries wait for approval. "
        "react_agent_meta.confidence says {candidates, agreeing, method}.",
    )
    answer_candidates_auto_count: int = Field(
        default=3,
        ge=2,
        le=5,
        description="Candidates in all (the agent's query included) when ANSWER_CANDIDATES="
        "auto finds a reason to doubt an answer.",
    )
    answer_candidates_temperature: float = Field(
        default=0.7,
        ge=0.0,
        le=2.0,
        description="Sampling temperature of the extra candidates' model calls: above 0 so "
        "that the samples of one request with n differ.",
    )

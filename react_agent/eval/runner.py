"""Running a golden set: each question asked on a fresh thread, its SQL scored by execution."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.access.scoping.rewrite import ScopeRefused
from react_agent.databases.base import SQLDatabase
from react_agent.eval import scoring
from react_agent.eval.agents import AgentAnswer, GoldenAgent, new_thread_id
from react_agent.eval.golden import GoldenQuestion

SCORING_ROW_LIMIT = 100_000
"""Rows read of each result that is compared (gold and predicted)."""

TIMEOUT_ERRORS = frozenset({"RUN_TIMEOUT", "LLM_TIMEOUT", "QUERY_TIMEOUT"})
RUN_COSTS = ("model_calls", "prompt_tokens", "completion_tokens", "seconds", "sql_count")


@dataclass
class QuestionOutcome:
    """One question's line of the report."""

    id: str
    passed: bool
    reason: str
    detail: str
    sql: str | None
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    sql_count: int
    tags: list[str] = field(default_factory=list)
    difficulty: str = "unknown"
    lang: str | None = None
    question: str = ""
    answer: str = ""
    runs: list[bool] = field(default_factory=list)
    """Each run's pass or fail, in order (one entry unless the set is repeated)."""

    def as_json(self) -> dict[str, Any]:
        """Return the outcome as report.json lists it."""
        return asdict(self)


def fold_runs(runs: Sequence[QuestionOutcome]) -> QuestionOutcome:
    """Return one outcome for K runs of a question: passed only if every run passed.

    The reason, detail, SQL and answer are the first failing run's (the first run's when
    all passed); costs are the means over the runs; `runs` lists each run's pass or fail.
    """
    first = next((run for run in runs if not run.passed), runs[0])
    means = {
        name: round(sum(getattr(run, name) for run in runs) / len(runs), 3) for name in RUN_COSTS
    }
    return QuestionOutcome(
        **{
            **first.as_json(),
            **means,
            "passed": all(run.passed for run in runs),
            "runs": [run.passed for run in runs],
        }
    )


@dataclass
class Scorer:
    """Executes gold and predicted SQL on the data database and compares the results.

    With a `scope` (an evaluation `--as` a user) both statements run through the scoped
    executor, as that user's queries do: the gold answer is what that user may see.
    """

    database: SQLDatabase
    timeout: float = 30.0
    scope: Scope | None = None
    columns: TableColumns | None = None

    async def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Run `sql` (under the scope, if any) and return its rows as tuples in column order."""
        if self.scope is None:
            result = await self.database.run_query(
                sql, row_limit=SCORING_ROW_LIMIT, timeout=self.timeout
            )
        else:
            _, result = await run_in_scope(
                self.database,
                sql,
                self.scope,
                self.columns,
                row_limit=SCORING_ROW_LIMIT,
                timeout=self.timeout,
            )
        return [tuple(row.get(c) for c in result.columns) for row in result.rows]

    async def _gold_out_of_scope(self, question: GoldenQuestion) -> scoring.Verdict | None:
        """Return OUT_OF_SCOPE when the gold SQL reaches outside the scope, else None."""
        if self.scope is None:
            return None
        try:
            await run_in_scope(
                self.database,
                question.gold_sql,
                self.scope,
                self.columns,
                row_limit=1,
                timeout=self.timeout,
            )
        except ScopeRefused as exc:
            return scoring.Verdict(scoring.OUT_OF_SCOPE, f"{exc.rule}: {exc.reason}")
        except Exception:
            return None  # scored below as GOLD_SQL_ERROR
        return None

    async def score(self, question: GoldenQuestion, answer: AgentAnswer) -> scoring.Verdict:
        """Return the verdict on one answer."""
        out_of_scope = await self._gold_out_of_scope(question)
        if out_of_scope is not None:
            return out_of_scope
        if answer.error_type is not None:
            reason = scoring.TIMEOUT if answer.error_type in TIMEOUT_ERRORS else scoring.AGENT_ERROR
            return scoring.Verdict(reason, f"{answer.error_type}: {answer.error}")
        if not answer.sql:
            return _without_sql(answer)
        try:
            gold = await self.rows(question.gold_sql)
        except Exception as exc:
            return scoring.Verdict(scoring.GOLD_SQL_ERROR, str(exc))
        try:
            predicted = await self.rows(answer.sql)
        except Exception as exc:
            return scoring.Verdict(scoring.SQL_ERROR, str(exc))
        ordered = scoring.outer_query_orders(question.gold_sql, self.database.dialect)
        verdict = scoring.compare_results(gold, predicted, ordered=ordered)
        if verdict.passed and question.facts:
            missing = scoring.facts_missing(answer.answer, question.facts)
            if missing:
                return scoring.Verdict(scoring.FACT_MISSING, f"not stated: {missing}")
        return verdict


def _without_sql(answer: AgentAnswer) -> scoring.Verdict:
    statuses = [entry.get("status") for entry in answer.sqls]
    if "refused" in statuses:
        return scoring.Verdict(scoring.REFUSED, "every query was refused by the SQL guard")
    if "error" in statuses:
        return scoring.Verdict(scoring.SQL_ERROR, "every query failed")
    return scoring.Verdict(scoring.NO_SQL, "the answer ran no SQL")


async def evaluate_question(
    question: GoldenQuestion, agent: GoldenAgent, scorer: Scorer, timeout: float
) -> QuestionOutcome:
    """Ask one golden question on a fresh thread and score the scored turn's SQL."""
    try:
        async with asyncio.timeout(timeout):
            answer = await agent.converse(question.turns, new_thread_id(question.id, agent.user_id))
    except TimeoutError:
        answer = AgentAnswer(seconds=timeout)
        answer.fail("RUN_TIMEOUT", f"no answer within {timeout:g} s")
    verdict = await scorer.score(question, answer)
    return QuestionOutcome(
        id=question.id,
        passed=verdict.passed,
        reason=verdict.reason,
        detail=verdict.detail,
        sql=answer.sql,
        model_calls=answer.model_calls,
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.completion_tokens,
        seconds=round(answer.seconds, 3),
        sql_count=len(answer.sqls),
        tags=list(question.tags),
        difficulty=question.difficulty,
        lang=question.lang,
        question=question.question,
        answer=answer.answer,
        runs=[verdict.passed],
    )


async def run_golden_set(
    questions: Sequence[GoldenQuestion],
    agent: GoldenAgent,
    scorer: Scorer,
    *,
    concurrency: int = 4,
    timeout: float = 120.0,
    on_done: Callable[[QuestionOutcome], None] | None = None,
    repeat: int = 1,
) -> list[QuestionOutcome]:
    """Evaluate every question `repeat` times, `concurrency` runs at once; in the set's order."""
    slots = asyncio.Semaphore(max(1, concurrency))

    async def one(question: GoldenQuestion) -> QuestionOutcome:
        async with slots:
            outcome = await evaluate_question(question, agent, scorer, timeout)
        if on_done is not None:
            on_done(outcome)
        return outcome

    times = max(1, repeat)
    runs = await asyncio.gather(*(one(q) for q in questions for _ in range(times)))
    return [fold_runs(runs[i : i + times]) for i in range(0, len(runs), times)]

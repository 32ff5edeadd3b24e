"""ANSWER_CANDIDATES=auto's cost and catch: `python -m bench.evaluation.candidates`.

Figures, not assertions. Runs the shipped golden set (react_agent/eval/golden/sample.jsonl)
through the real agent in this process twice, with ANSWER_CANDIDATES off and auto, with a
scripted model that answers each question with its gold SQL but errs on a known tenth of
them (every tenth question by id): half of those errors return no rows (the gold query
filtered to nothing), half keep only the first row (LIMIT 1), so its answer states facts
no row holds unless the gold result has one row. The candidate writer, asked apart (its
system prompt), writes the gold SQL; with `--n` it answers a request with `n` with n
choices (as OpenAI, vLLM do), without it one (as Ollama does). Each model call waits
`--latency-ms` (50), as a served model would, so the wall time says what the extra calls
cost a person waiting.

Reports per run: accuracy, model calls (the agent's and the candidate writer's), the
questions weighed and why, wall time per question (p50, mean), and the errors made and
caught (failing with candidates off, passing with auto).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatGeneration
from pydantic import PrivateAttr

from config import Settings
from react_agent.eval.golden import SAMPLE_GOLDEN_SET, GoldenQuestion, read_golden_set
from react_agent.eval.sessions import evaluate_in_process
from react_agent.results.candidate_sql import CANDIDATE_PROMPT
from tests.support.golden_model import USAGE, GoldenScriptModel

WRITER_OPENING = CANDIDATE_PROMPT.split("{dialect}")[0]
ERR_EVERY = 10
"""Every tenth question (by id) gets a wrong first query."""


def mistakes_for(questions: list[GoldenQuestion]) -> dict[str, str]:
    """Return the known wrong first queries: no rows and first row only, in turn."""
    erring = sorted(q.id for q in questions)[ERR_EVERY - 1 :: ERR_EVERY]
    gold = {q.id: q.gold_sql.rstrip().rstrip(";") for q in questions}
    return {
        question_id: (
            f"SELECT * FROM ({gold[question_id]}) AS g WHERE 1 = 0"
            if number % 2 == 0
            else f"SELECT * FROM ({gold[question_id]}) AS g LIMIT 1"
        )
        for number, question_id in enumerate(erring)
    }


def _is_writer(messages: list[BaseMessage]) -> bool:
    """Whether a request is the candidate writer's (its system prompt), not the agent's."""
    first = messages[0] if messages else None
    return isinstance(first, SystemMessage) and str(first.content).startswith(WRITER_OPENING)


class TimedGoldenModel(GoldenScriptModel):
    """The golden script with a latency per call, the candidate writer answered apart."""

    latency: float = 0.05
    honours_n: bool = False
    _calls: Counter = PrivateAttr(default_factory=Counter)
    _weighed: set = PrivateAttr(default_factory=set)

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        if _is_writer(messages):
            turn = str(messages[-1].content)
            question = next((q for q in self.questions if q.question == turn), None)
            if question is not None:
                self._weighed.add(question.id)
            sql = question.gold_sql if question is not None else "SELECT 1"
            return AIMessage(content=f"```sql\n{sql}\n```", usage_metadata=dict(USAGE))
        return super()._reply(messages)

    async def _before_reply(self, messages: list[BaseMessage]) -> None:
        await asyncio.sleep(self.latency)
        await super()._before_reply(messages)

    async def _agenerate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        """Answer a request with `n` with n choices when `honours_n`, as OpenAI and vLLM do."""
        self._calls["writer" if _is_writer(messages) else "agent"] += 1
        result = await super()._agenerate(messages, *args, **kwargs)
        wanted = int(kwargs.get("n") or 1)
        if self.honours_n and wanted > 1:
            more = [self._reply(messages) for _ in range(wanted - 1)]
            result.generations += [ChatGeneration(message=message) for message in more]
        return result


async def measure(mode: str, latency: float, concurrency: int, honours_n: bool) -> dict[str, Any]:
    """Return one run of the set with ANSWER_CANDIDATES=`mode`."""
    questions = read_golden_set(SAMPLE_GOLDEN_SET)
    model = TimedGoldenModel(questions=questions, mistakes=mistakes_for(questions))
    model.latency, model.honours_n = latency, honours_n
    durations: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(
            _env_file=None,
            data_dir=Path(directory),
            openai_api_key=None,
            memory=False,
            answer_candidates=mode,
        )
        started = time.perf_counter()
        report = await evaluate_in_process(
            questions,
            settings,
            model=model,
            concurrency=concurrency,
            on_done=lambda outcome: durations.__setitem__(outcome.id, outcome.seconds),
        )
        seconds = time.perf_counter() - started
    return {
        "mode": mode,
        "questions": report["total"],
        "accuracy": report["accuracy"],
        "passed": {q["id"]: q["passed"] for q in report["questions"]},
        "agent_calls": model._calls["agent"],
        "writer_calls": model._calls["writer"],
        "weighed": sorted(model._weighed),
        "seconds": round(seconds, 2),
        "per_question_p50_ms": round(statistics.median(durations.values()) * 1000),
        "per_question_mean_ms": round(statistics.fmean(durations.values()) * 1000),
        "durations": durations,
    }


async def run(latency: float, concurrency: int, honours_n: bool) -> dict[str, Any]:
    """Measure off, then auto; say which errors auto caught."""
    off = await measure("off", latency, concurrency, honours_n)
    auto = await measure("auto", latency, concurrency, honours_n)
    questions = read_golden_set(SAMPLE_GOLDEN_SET)
    erring = sorted(mistakes_for(questions))
    made = [q for q in erring if not off["passed"][q]]
    caught = [q for q in made if auto["passed"][q]]
    broken = [q for q, ok in off["passed"].items() if ok and not auto["passed"][q]]
    total = off["questions"]
    weighed = auto["weighed"]
    off_ms = [off["durations"][q] * 1000 for q in weighed]
    auto_ms = [auto["durations"][q] * 1000 for q in weighed]
    summary = {
        "latency_ms": round(latency * 1000),
        "model_honours_n": honours_n,
        "concurrency": concurrency,
        "erring_questions": erring,
        "errors_made": made,
        "errors_caught": caught,
        "passing_broken_by_auto": broken,
        "extra_model_calls": auto["agent_calls"] + auto["writer_calls"] - off["agent_calls"],
        "extra_calls_per_question": round(
            (auto["agent_calls"] + auto["writer_calls"] - off["agent_calls"]) / total, 3
        ),
        "weighed_questions": len(weighed),
        "weighed_mean_ms_off": round(statistics.fmean(off_ms)) if off_ms else None,
        "weighed_mean_ms_auto": round(statistics.fmean(auto_ms)) if auto_ms else None,
        "load_average": os.getloadavg(),
    }
    for run_ in (off, auto):
        run_.pop("passed")
        run_.pop("durations")
    return {"off": off, "auto": auto, **summary}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=50.0, help="per model call")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--n", action="store_true", help="the model answers a request with n with n choices"
    )
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args.latency_ms / 1000, args.concurrency, args.n))
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

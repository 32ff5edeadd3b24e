"""Starting an accepted question's run: the one call every surface makes.

The sync and stream routes, the OpenAI-compatible route and the MCP tools accept a
question through `accept.accept_question`, then start it here, with everything it
resolved as the run's arguments: the language, the pause switches, the asker (actor) and
their scope, and the data source (a dataset).
"""

from __future__ import annotations

from app.asking.quotas import run_tokens
from app.asking.validation import AskRequest
from react_agent.approval.decisions import ApprovalDecision
from react_agent.runs.run import Run
from react_agent.runs.run_flags import RunFlags
from react_agent.runs.runner import AgentRunner


async def start_run(
    runner: AgentRunner,
    ask: AskRequest,
    *,
    resume: ApprovalDecision | None = None,
    stream_tokens: bool = False,
) -> Run:
    """Start `ask` on its thread, or resume the pause `resume` (else `ask.resume`) answers.

    Under a token quota the run holds its tokens from start to end (app/asking/quotas.py):
    a run that does not start gives them back at once, a started one when its task ends.
    """
    decision = resume if resume is not None else ask.resume
    held = await run_tokens()
    try:
        run = await _start(runner, ask, decision, stream_tokens)
    except BaseException:
        if held is not None:
            held.release()
        raise
    if held is not None:
        assert run.task is not None  # the runner starts the run's task before it returns
        run.task.add_done_callback(lambda _: held.release())
    return run


async def _start(
    runner: AgentRunner, ask: AskRequest, decision: ApprovalDecision | None, stream_tokens: bool
) -> Run:
    return await runner.start(
        "" if decision is not None else ask.question,
        ask.thread_id,
        lang=ask.lang,
        stream_tokens=stream_tokens,
        resume=decision,
        on_busy=ask.on_busy,
        flags=RunFlags(
            approve_sql=ask.approve_sql,
            clarify=bool(ask.clarify),
            new_thread=ask.is_new_thread,  # the runner clears it for a resume
        ),
        scope=ask.scope,
        actor=ask.actor,
        source=ask.data_source,
    )

"""Starting an accepted question's run: the one call every surface makes.

The sync and stream routes, the OpenAI-compatible route and the MCP tools accept a
question each in their own words, then start it here, with everything the accept path
resolved: the language, the pause switches, the asker and their scope.
"""

from __future__ import annotations

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
    """Start `ask` on its thread, or resume the pause `resume` (else `ask.resume`) answers."""
    decision = resume if resume is not None else ask.resume
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
    )

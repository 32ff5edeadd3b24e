"""`GET /v1/models` and `POST /v1/chat/completions`: the agent as an OpenAI chat model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote, unquote

from pydantic import ValidationError
from quart import Blueprint, Response, g, request
from quart_schema import document_request, document_response

from app.asking.accept_route import accept_request
from app.asking.start import start_run
from app.asking.validation import AskRequest
from app.http.app_state import agent_service, app_settings
from app.http.bodies import read_json_object
from app.http.errors import add_error_format
from app.openai_compat.errors import OPENAI_PATH_PREFIX, openai_error_body
from app.openai_compat.parameters import refuse_unsupported_parameters
from app.openai_compat.pauses import decision_for_reply, pause_markdown
from app.openai_compat.replies import (
    DONE_EVENT,
    Completion,
    answer_markdown,
    chunk_event,
    completion_body,
    data_event,
    step_line,
    usage_chunk_event,
)
from app.openai_compat.schemas import ChatCompletion, ChatCompletionRequest, ModelList, OpenAIError
from app.streaming.sse import SSE_HEADERS, encode_sse_comment
from react_agent.errors import ServiceError, bad_request
from react_agent.runs.events.events import NodeFinished, RunFailed, RunFinished, RunResult
from react_agent.runs.run import Run
from react_agent.runs.runner import AgentRunner

if TYPE_CHECKING:
    from flask.sansio.blueprints import BlueprintSetupState

blueprint = Blueprint("openai_chat", __name__)


@blueprint.record_once
def _answer_errors_in_openai_format(state: BlueprintSetupState) -> None:
    """Every error under /v1/ (a 404 or 401 included) gets OpenAI's error object."""
    add_error_format(state.app, OPENAI_PATH_PREFIX, openai_error_body)


T = TypeVar("T")

CONVERSATION_HEADER = "X-Conversation-Id"
"""Request and response header naming the conversation (percent-encoded UTF-8)."""
MODEL_CREATED = 1_700_000_000
"""A fixed `created` time for the one model."""


def _document_openai_errors(*statuses: int) -> Callable[[T], T]:
    def decorator(func: T) -> T:
        for status in statuses:
            func = document_response(OpenAIError, status)(func)
        return func

    return decorator


@blueprint.get("/v1/models")
@document_response(ModelList, 200)
@_document_openai_errors(401)
async def list_models() -> dict[str, Any]:
    """List the one model: the agent (AGENT_MODEL_NAME)."""
    name = app_settings().agent_model_name
    return {
        "object": "list",
        "data": [{"id": name, "object": "model", "created": MODEL_CREATED, "owned_by": "service"}],
    }


@blueprint.post("/v1/chat/completions")
@document_request(ChatCompletionRequest)
@document_response(ChatCompletion, 200)
@_document_openai_errors(400, 401, 403, 404, 409, 413, 429, 500, 503, 504)
async def chat_completions() -> Response | tuple[dict[str, Any], int, dict[str, str]]:
    """Ask the last user message; the steps come as `reasoning_content`, then the answer.

    The conversation is `metadata.conversation_id` or the X-Conversation-Id header, else
    the one the earlier messages sent back continue, else a new one; its id comes back in
    the X-Conversation-Id header and as `conversation_id`. `usage` sums the run's tokens.
    """
    body = parse_chat_request(await read_json_object(request))

    async def continuing(ask: AskRequest) -> AskRequest:
        return await continued(ask, body)

    ask = await accept_request(chat_payload(body), "openai", continued=continuing)
    runner = agent_service().require_runner()
    run = await start_or_resume(runner, ask)
    g.conversation_id = ask.thread_id
    include_usage = bool((body.stream_options or {}).get("include_usage"))
    completion = Completion(
        f"chatcmpl-{run.run_id}", _model_name(), ask.thread_id, ask.lang, include_usage
    )
    headers = {CONVERSATION_HEADER: quote(ask.thread_id, safe=":")}
    if body.stream:
        heartbeat = app_settings().stream_heartbeat
        response = Response(
            completion_chunks(run, completion, heartbeat), headers={**SSE_HEADERS, **headers}
        )
        response.timeout = None  # the run's own limit applies, not Quart's 60 s
        return response
    result = await run.result()
    reasoning = "".join(
        step_line(event, ask.lang) for event in run.events if isinstance(event, NodeFinished)
    )
    content = reply_content(result, ask.lang)
    return completion_body(completion, content, reasoning, result.usage), 200, headers


async def start_or_resume(runner: AgentRunner, ask: AskRequest) -> Run:
    """Start the question, or resume the pause it answers (a paused run's chat reply).

    On a conversation that waits (a clarifying question, SQL to approve), a message that
    reads as an answer resumes it; any other message is a new question, which closes it.
    """
    resume = None
    if not ask.is_new_thread:
        pause = await agent_service().conversations().pending_pause(ask.thread_id)
        if pause is not None:
            resume = decision_for_reply(ask.question, pause)
    return await start_run(runner, ask, resume=resume)


def reply_content(result: RunResult, lang: str) -> str:
    """Return the assistant's message: the answer with its SQL and rows, or the pause."""
    if result.approval is not None:
        return pause_markdown(result.approval, lang)
    return answer_markdown(result)


def parse_chat_request(payload: dict[str, Any]) -> ChatCompletionRequest:
    """Validate the request body, or raise 400 INVALID_REQUEST naming what is wrong."""
    try:
        body = ChatCompletionRequest.model_validate(payload)
    except ValidationError as exc:
        detail = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}"
            for error in exc.errors()
        )
        raise bad_request("INVALID_REQUEST", detail, reason=detail) from exc
    if body.model and body.model != _model_name():
        raise ServiceError(
            404, "MODEL_NOT_FOUND", f"the model {body.model!r} does not exist", model=body.model
        )
    refuse_unsupported_parameters(body)
    return body


async def continued(ask: AskRequest, body: ChatCompletionRequest) -> AskRequest:
    """Return `ask` on the conversation its earlier messages continue, when they name none.

    A client that sends history but no id (the `llm` CLI's `-c`) continues the user's
    thread whose questions and last answer those messages repeat; else `ask` as it is.
    """
    if not ask.is_new_thread:
        return ask
    questions = [_text(m.content) for m in body.messages[:-1] if m.role == "user"]
    replies = [_text(m.content) for m in body.messages[:-1] if m.role == "assistant"]
    if not questions or not replies:
        return ask
    conversations = agent_service().conversations()
    thread_id = await conversations.continued_thread(ask.user_id, questions, replies[-1])
    if thread_id is None:
        return ask
    g.conversation_id = thread_id
    return replace(ask, thread_id=thread_id, is_new_thread=False)


def chat_payload(body: ChatCompletionRequest) -> dict[str, Any]:
    """Return the ask fields of a chat request (accepted with the ask endpoint's rules)."""
    conversation_id = (body.metadata or {}).get("conversation_id")
    if conversation_id is None and request.headers.get(CONVERSATION_HEADER):
        conversation_id = unquote(request.headers[CONVERSATION_HEADER])
    return {
        "question": last_user_text(body),
        "user_id": body.user,
        "conversation_id": conversation_id,
        # #50.3: the asker's uploaded dataset, kept by the conversation from then on.
        "dataset_id": (body.metadata or {}).get("dataset_id"),
    }


def last_user_text(body: ChatCompletionRequest) -> str:
    """Return the text of the last user message (its text parts joined), or raise 400."""
    for message in reversed(body.messages):
        if message.role == "user":
            return _text(message.content)
    raise bad_request("QUESTION_REQUIRED", "the messages contain no user message")


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        part["text"]
        for part in content or []
        if part.get("type") == "text" and isinstance(part.get("text"), str)
    )


async def completion_chunks(
    run: Run, completion: Completion, heartbeat: float
) -> AsyncIterator[bytes]:
    """Yield the run as chunks: a line per step, the answer, the final chunk and [DONE].

    A client that goes away ends the generator, and the run is cancelled with it.
    """
    try:
        yield chunk_event(completion, {"role": "assistant", "content": ""})
        async for _, event in run.follow(0, idle_timeout=heartbeat):
            if event is None:
                yield encode_sse_comment("ping")
            elif isinstance(event, NodeFinished):
                yield chunk_event(
                    completion, {"reasoning_content": step_line(event, completion.lang)}
                )
            elif isinstance(event, RunFinished):
                content = reply_content(event.result, completion.lang)
                yield chunk_event(completion, {"content": content})
                yield chunk_event(completion, {}, finish_reason="stop")
                if completion.include_usage:
                    yield usage_chunk_event(completion, event.result.usage)
            elif isinstance(event, RunFailed):
                yield data_event(openai_error_body(event.error))
        yield DONE_EVENT
    finally:
        run.cancel()


def _model_name() -> str:
    return app_settings().agent_model_name

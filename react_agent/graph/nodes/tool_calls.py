"""A model's tool calls made safe to run: every wrong call answered, outages passed on.

Whatever a model gets wrong in a call (a name no tool has, no name, arguments that are not
one JSON object, a JSON object sent as a string, unknown, missing or mistyped arguments,
an argument of 100 KB), it gets an error result in words it can act on, and the round
counts toward the step limit like any other. A `ServiceError` raised by a tool (the data
database is down: 503 DATABASE_UNAVAILABLE) is no mistake of the model's: it ends the
question with its own code instead of feeding the model retries it cannot win.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.messages.tool import InvalidToolCall, ToolCall
from langchain_core.tools import BaseTool
from langgraph.prebuilt.tool_node import ToolCallRequest, ToolInvocationError
from langgraph.types import Command

from react_agent.databases.base import QueryFailed
from react_agent.errors import ServiceError
from react_agent.guard.sql_guard import QueryRejected

logger = logging.getLogger(__name__)

MAX_ARGUMENTS_CHARS = 20_000
"""Longest arguments (as JSON) a tool call may have; a longer one is refused unrun."""

MAX_ECHO_CHARS = 200
"""Most characters of the model's own arguments quoted back in an error result."""

MAX_ERROR_CHARS = 2_000
"""Longest error result the model is sent (a database's error may quote its statement)."""

UNPARSED_ARGUMENTS = "unparsed_tool_arguments"
"""Key of a streamed answer's metadata: call id → its arguments (echoed) that were not JSON."""

UNNAMED_TOOL = "unnamed_tool"
"""The name a call the model sent without one is kept under (and answered as such)."""

Execute = Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]]


def echo(value: object) -> str:
    """Return `value` as the model wrote it, cut to MAX_ECHO_CHARS with the length said."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_ECHO_CHARS:
        return text
    return f"{text[:MAX_ECHO_CHARS]}… ({len(text):,} characters in all)"


def bounded(text: str) -> str:
    """Return an error text cut to MAX_ERROR_CHARS, saying how much was left out."""
    if len(text) <= MAX_ERROR_CHARS:
        return text
    return f"{text[:MAX_ERROR_CHARS]}… ({len(text) - MAX_ERROR_CHARS:,} characters cut)"


class ToolCallErrors:
    """The tools node's error handler and wrapper, over the tools the model was given."""

    def __init__(self, tools: Sequence[BaseTool]) -> None:
        self.tools = {tool.name: tool for tool in tools}

    def describe(self, error: Exception) -> str:
        """Return the error result for a failed call; re-raise what ends the question.

        Annotated `Exception` (one class, which LangGraph's ToolNode can read: a union
        under postponed annotations made it crash on every tool error).
        """
        if isinstance(error, ServiceError):
            raise error
        if isinstance(error, ToolInvocationError):
            return self._invalid_arguments(error)
        if isinstance(error, QueryFailed | QueryRejected):
            return bounded(f"Error: {error}")
        # Not the model's mistake we know of, but one it may work around: it is told, and
        # the log keeps the traceback for whoever finds the bug.
        logger.warning("tool call failed: %s: %s", type(error).__name__, error, exc_info=error)
        return bounded(
            f"Error: the tool failed ({type(error).__name__}: {error}). Try another way, "
            "or answer with what you have."
        )

    async def vet(self, request: ToolCallRequest, execute: Execute) -> ToolMessage | Command:
        """Answer calls of no known tool or with unknown arguments; bound error results."""
        call = request.tool_call
        tool = self.tools.get(call["name"])
        if tool is None:
            return self._error(call, self._unknown_tool(call["name"]))
        accepted = _parameters(tool)
        unknown = sorted(set(call["args"]) - set(accepted)) if accepted is not None else []
        if unknown:
            return self._error(
                call,
                f"Error: {call['name']} has no argument {', '.join(map(repr, unknown))}; "
                f"{self.signature(tool)}. Call it again with those arguments only.",
            )
        result = await execute(request)
        if isinstance(result, ToolMessage) and result.status == "error":
            if isinstance(result.content, str) and len(result.content) > MAX_ERROR_CHARS:
                result = result.model_copy(update={"content": bounded(result.content)})
        return result

    def signature(self, tool: BaseTool) -> str:
        """Return `its arguments are: sql (string, required), …` for an error result."""
        schema = _schema(tool)
        properties: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        if not properties:
            return f"{tool.name} takes no arguments"
        listed = ", ".join(
            f"{name} ({spec.get('type', 'any')}{', required' if name in required else ''})"
            for name, spec in properties.items()
        )
        return f"its arguments are: {listed}"

    def _unknown_tool(self, name: str) -> str:
        known = ", ".join(self.tools)
        if name == UNNAMED_TOOL or not name.strip():
            return f"Error: this tool call names no tool. Call one of: {known}."
        return f"Error: {echo(name)} is not a valid tool; call one of: {known}."

    def _invalid_arguments(self, error: ToolInvocationError) -> str:
        problems = []
        for detail in error.filtered_errors or []:
            where = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
            if detail.get("type") == "missing":
                problems.append(f"{where} is missing")
            else:
                given = echo(detail.get("input"))
                problems.append(f"{where}: {detail.get('msg', 'invalid')} (got {given})")
        tool = self.tools.get(error.tool_name)
        signature = f"; {self.signature(tool)}" if tool is not None else ""
        said = "; ".join(problems) or echo(str(error.source))
        return bounded(
            f"Error: {error.tool_name} was called with wrong arguments: {said}{signature}. "
            "Call it again with the arguments fixed."
        )

    @staticmethod
    def _error(call: ToolCall, content: str) -> ToolMessage:
        return ToolMessage(
            content=content, tool_call_id=call["id"] or "", name=call["name"], status="error"
        )


def _schema(tool: BaseTool) -> dict[str, Any]:
    schema = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    return schema.model_json_schema()


def _parameters(tool: BaseTool) -> list[str] | None:
    """Return the arguments the model may give `tool`; None when they cannot be told."""
    try:
        return list(_schema(tool).get("properties") or {})
    except Exception:  # an exotic schema: leave the check to the tool's own validation
        return None


def vet_model_calls(message: AIMessage) -> tuple[AIMessage, list[ToolMessage]]:
    """Return the model's message with its calls made runnable, and the calls answered unrun.

    Arguments sent as a JSON string holding a JSON object are decoded once and run; ones
    that are not one JSON object, or longer than MAX_ARGUMENTS_CHARS, are answered with an
    error and kept with `{}` as their arguments, so the history sent back to the model
    stays valid JSON (servers such as llama.cpp refuse a history that is not) and small.
    SQL arguments are tidied (spaces and a trailing semicolon). A call without an id, or
    with the id of another call of the message (some local servers send either), gets an
    id of its own: results are matched to calls by id. One without a name is kept as
    UNNAMED_TOOL, which the tools node answers.
    """
    runnable: list[ToolCall] = []
    refused: list[InvalidToolCall] = []
    answers: list[ToolMessage] = []
    unparsed = message.response_metadata.get(UNPARSED_ARGUMENTS) or {}
    valid, invalid_calls = _with_own_ids(message)
    for call in valid:
        size = len(json.dumps(call["args"], ensure_ascii=False, default=str))
        if call["id"] in unparsed:  # streamed, and read leniently: it was not JSON
            answers.append(_answer(call, _not_json(call["name"], unparsed[call["id"]], None)))
            refused.append(_kept(call))
        elif size > MAX_ARGUMENTS_CHARS:
            answers.append(_answer(call, _too_long(call["name"], size)))
            refused.append(_kept(call))
        else:
            runnable.append(_tidy(call))
    for invalid in invalid_calls:
        args = _decoded_object(invalid.get("args"))
        if isinstance(args, dict):
            name = invalid["name"] or ""
            runnable.append(
                _tidy(ToolCall(name=name, args=args, id=invalid["id"], type="tool_call"))
            )
            continue
        answers.append(_answer(invalid, _not_an_object(invalid, args)))
        refused.append(_kept(invalid))
    if runnable == message.tool_calls and refused == message.invalid_tool_calls:
        return message, answers
    # Same id: add_messages replaces the message instead of appending it.
    vetted = message.model_copy(update={"tool_calls": runnable, "invalid_tool_calls": refused})
    return vetted, answers


def _with_own_ids(message: AIMessage) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Return the message's calls and invalid calls, each with a name and an id of its own."""
    seen: set[str] = set()

    def own(call: Any) -> Any:
        if not (call["name"] or "").strip():
            # OpenAI refuses a history holding a call with an empty name (HTTP 400).
            call = {**call, "name": UNNAMED_TOOL}
        if call["id"] and call["id"] not in seen:
            seen.add(call["id"])
            return call
        fresh = f"call_{uuid.uuid4().hex[:24]}"
        seen.add(fresh)
        return {**call, "id": fresh}

    return [own(c) for c in message.tool_calls], [own(c) for c in message.invalid_tool_calls]


class StreamedArguments:
    """The arguments of a streamed answer's tool calls, as sent, to be checked at its end."""

    def __init__(self) -> None:
        self.ids: dict[int, str] = {}
        self.texts: dict[int, list[str]] = {}

    def add(self, chunks: Sequence[Any]) -> None:
        """Note the pieces of arguments (and the ids) of one streamed delta."""
        for position, chunk in enumerate(chunks):
            index = chunk.get("index")
            index = position if index is None else index
            if chunk.get("id"):
                self.ids[index] = chunk["id"]
            if chunk.get("args"):
                self.texts.setdefault(index, []).append(chunk["args"])

    def unparsed(self) -> dict[str, str]:
        """Return call id → echoed arguments, for each call whose arguments are not JSON."""
        found = {}
        for index, pieces in self.texts.items():
            text = "".join(pieces)
            try:
                json.loads(text)
            except ValueError:
                if index in self.ids:
                    found[self.ids[index]] = echo(text)
        return found


def split_non_object_calls(raw_calls: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """Return the raw OpenAI tool calls whose arguments may be an object, and the others.

    langchain-openai fails the whole answer on arguments that are JSON but no object (a
    string of JSON, a list): its AIMessage refuses them. Put apart, they become invalid
    calls, as the same arguments streamed do, which vet_model_calls then answers.
    """
    kept, apart = [], []
    for raw in raw_calls:
        function = raw.get("function") if isinstance(raw, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        try:
            value = json.loads(arguments) if arguments else None
        except (ValueError, TypeError):
            value = None
        (apart if value is not None and not isinstance(value, dict) else kept).append(raw)
    return kept, apart


def _decoded_object(raw: str | None) -> Any:
    """Return raw arguments decoded, once more when they are a string of JSON; None: not JSON."""
    try:
        value = json.loads(raw or "{}")
        if isinstance(value, str):
            value = json.loads(value)
    except (ValueError, TypeError):
        return None
    return value


def _not_an_object(call: InvalidToolCall, decoded: Any) -> str:
    return _not_json(call["name"], echo(call.get("args") or ""), decoded)


def _not_json(name: str | None, echoed: str, decoded: Any) -> str:
    kind = "not valid JSON" if decoded is None else f"JSON but a {type(decoded).__name__}"
    return (
        f"Error: the arguments of this {name or 'tool'} call are {kind}, so it did not run "
        f"(you sent: {echoed}). Call it again with its arguments as one JSON object, "
        'such as {"sql": "SELECT …"}.'
    )


def _too_long(name: str, size: int) -> str:
    return (
        f"Error: the arguments of this {name} call are {size:,} characters long, more than "
        f"the {MAX_ARGUMENTS_CHARS:,} allowed, so it did not run. Send a shorter call."
    )


def _answer(call: ToolCall | InvalidToolCall, content: str) -> ToolMessage:
    return ToolMessage(
        content=content, tool_call_id=call["id"] or "", name=call["name"] or "", status="error"
    )


def _kept(call: ToolCall | InvalidToolCall) -> InvalidToolCall:
    return InvalidToolCall(
        type="invalid_tool_call", name=call["name"], args="{}", id=call["id"], error=None
    )


def _tidy(call: ToolCall) -> ToolCall:
    sql = call["args"].get("sql")
    if isinstance(sql, str):
        tidy = sql.strip().rstrip(";").strip()
        if tidy != sql:
            return ToolCall(**{**call, "args": {**call["args"], "sql": tidy}})
    return call

"""The areas a question's CPU is charged to, from the files on a stack.

One list for both profilers: `python -m bench.cost_per_question` (CPU-time samples of the
in-process graph) and `python -m bench --profile` (py-spy on the service). A stack is
charged to the first area, in this order, that any of its frames belongs to: the model
call made from our `call_model` node is the model call's, the token counting that
trimming asks for is trimming's, the pregel loop around both is LangGraph's.
"""

from __future__ import annotations

AREAS: list[tuple[str, tuple[str, ...]]] = [
    ("logging", ("/logging/",)),
    ("memory retrieval (react_agent/memory)", ("/react_agent/memory/",)),
    ("history blocks and index (react_agent/history)", ("/react_agent/history/",)),
    ("approval (react_agent/approval)", ("/react_agent/approval/",)),
    (
        "trimming (graph/model_input/trimming.py, token counts)",
        ("/react_agent/graph/model_input/trimming",),
    ),
    (
        "SQL tools: guard (sqlglot), execution, results",
        ("/react_agent/tools/", "/react_agent/databases/", "/sqlglot/"),
    ),
    (
        "checkpointer: serialization and writes",
        (
            "/langgraph/checkpoint/",
            "aiosqlite",
            "/react_agent/conversations/",
            "/psycopg",
            "ormsgpack",
        ),
    ),
    (
        "model call: langchain-openai, openai SDK, httpx",
        ("/langchain_openai/", "/openai/", "httpx", "httpcore", "/anyio/", "/h2/"),
    ),
    (
        "langchain-core chat model: callbacks, generation",
        ("/langchain_core/language_models/", "/langchain_core/outputs/"),
    ),
    ("our nodes (graph/nodes/agent.py, messages, prompt)", ("/react_agent/graph/",)),
    ("ToolNode and langchain-core tools", ("/langgraph/prebuilt/", "/langchain_core/tools/")),
    (
        "HTTP server: hypercorn, h11, quart, our routes and SSE",
        # Not /app/__main__.py: it is at the root of every stack of the service's event loop.
        (
            "/hypercorn/",
            "/h11/",
            "/quart/",
            "/werkzeug/",
            "/app/routes/",
            "/app/streaming/",
            "/app/asking/",
            "/app/envelope",
            "/app/openai_compat/",
            "/app/auth",
        ),
    ),
    ("LangGraph: pregel loop, channels, stream", ("/langgraph/",)),
    ("langchain-core: runnables, callbacks, messages", ("/langchain_core/", "/langsmith/")),
    ("runner and run events (react_agent/runs)", ("/react_agent/runs/",)),
    ("pydantic", ("/pydantic/", "pydantic_core")),
    ("event loop: in the selector (kernel time, thread wake-ups)", ("/selectors.py",)),
]
"""(area, path markers), in the order a stack is charged."""

OTHER = "event loop, kernel and everything else"


def area_of(paths: list[str]) -> str:
    """Return the area a stack (its frames' file paths) is charged to (see AREAS)."""
    normalized = ["/" + path.lstrip("/") for path in paths]
    for name, markers in AREAS:
        if any(marker in path for path in normalized for marker in markers):
            return name
    return OTHER


def area_names() -> list[str]:
    """Return every area, in the order of the tables (OTHER last)."""
    return [name for name, _ in AREAS] + [OTHER]

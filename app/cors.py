"""Cross-origin requests of the embedded chat (<sql-agent-chat>) from the sites of EMBED_ORIGINS.

A host page on another site loads the component's script (a module script: fetched with
CORS), the page's modules it imports and index.html's cards, then calls the stream route
with the key in a header (so the browser sends a preflight first); after the host page
reloads, it reads its conversation back (its turns, and its status: a pause waiting for a
person). Those paths answer the listed origins with `Access-Control-Allow-Origin`; a
preflight from any other origin is refused with 403 `ORIGIN_NOT_ALLOWED` before the key
check, and no answer to another origin carries the header, so its browser neither runs the
script nor reads a response.
"""

from __future__ import annotations

import re

from quart import Quart, Response, request

from app.routes.questions.ask_stream import STREAM_PATH
from app.routes.web.embed import EMBED_PREFIX
from app.routes.web.embed import blueprint as embed_blueprint
from react_agent.errors import ServiceError

STATIC_PREFIX = "/static/"
SCRIPT_PREFIXES = (EMBED_PREFIX, STATIC_PREFIX)
"""The component's script, the modules, style sheets and markup it takes from the page."""
API_PATHS = re.compile(
    rf"^(?:{re.escape(STREAM_PATH)}|/api/v0/react/runs/[^/]+/cancel"
    r"|/api/v0/react/conversations/[^/]+|/api/v0/react/status/[^/]+)$"
)
"""The routes the component calls: the stream (ask and resume), a run's cancel (stop), and
a conversation and its status read back after the host page reloads (read only: the
preflights allow GET and POST, so a browser sends no cross-site PATCH or DELETE there)."""
ALLOWED_METHODS = "GET, POST"
ALLOWED_HEADERS = "Authorization, Content-Type, Accept, Accept-Language, Last-Event-ID"
EXPOSED_HEADERS = "Retry-After, Warning"
PREFLIGHT_MAX_AGE = "600"
"""Seconds a browser may keep a preflight's answer."""


def is_cors_path(path: str) -> bool:
    """Whether `path` is one the embedded chat reads from another site."""
    return path.startswith(SCRIPT_PREFIXES) or API_PATHS.match(path) is not None


def is_preflight() -> bool:
    """Whether the request is a browser's CORS preflight (not a plain OPTIONS)."""
    return (
        request.method == "OPTIONS"
        and "Origin" in request.headers
        and "Access-Control-Request-Method" in request.headers
    )


def install_embedding(app: Quart, origins: frozenset[str]) -> None:
    """Serve the chat component's script (routes/web/embed) and let `origins` use it (CORS)."""
    app.register_blueprint(embed_blueprint)
    install_cors(app, origins)


def install_cors(app: Quart, origins: frozenset[str]) -> None:
    """Answer preflights and add CORS headers for `origins` (EMBED_ORIGINS) on the chat's paths.

    Installed before the API key check: a preflight carries no key, and must be answered
    (or refused) before that check would ask it for one.
    """

    @app.before_request
    async def answer_preflight() -> Response | None:
        if not is_preflight() or not is_cors_path(request.path):
            return None
        origin = request.headers["Origin"]
        if origin not in origins:
            raise ServiceError(
                403,
                "ORIGIN_NOT_ALLOWED",
                f"origin {origin} may not call this service from a browser; "
                "an operator lists the sites that may in EMBED_ORIGINS",
                origin=origin,
            )
        response = Response("", status=204)
        del response.headers["Content-Type"]  # 204 has no body, so no type either
        response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
        response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
        response.headers["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
        return response

    @app.after_request
    async def allow_listed_origin(response: Response) -> Response:
        if not is_cors_path(request.path):
            return response
        # The answer depends on the Origin: a cache must not give one site's to another.
        response.vary.add("Origin")
        origin = request.headers.get("Origin")
        if origin is not None and origin in origins:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response

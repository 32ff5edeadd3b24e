"""GET /embed/sql-agent-chat.js: the chat as a web component for other sites (docs/embed.md).

A stable URL for host pages to load with `<script type="module">`; the file is the page's
`static/sql_agent_chat.js`, which imports the page's own modules from `/static/`. Sites
that may load it from another origin are listed in EMBED_ORIGINS (app/cors.py).
"""

from __future__ import annotations

from quart import Blueprint, Response, current_app
from quart_schema import hide

blueprint = Blueprint("embed", __name__)

EMBED_PREFIX = "/embed/"
EMBED_SCRIPT_PATH = f"{EMBED_PREFIX}sql-agent-chat.js"
COMPONENT_FILE = "sql_agent_chat.js"


@blueprint.get(EMBED_SCRIPT_PATH)
@hide  # a script, not part of the JSON API
async def chat_component_script() -> Response:
    """Serve the <sql-agent-chat> element's module script."""
    response = await current_app.send_static_file(COMPONENT_FILE)
    # One URL across releases: browsers check it again rather than keep an old copy.
    response.headers["Cache-Control"] = "no-cache"
    response.headers.pop("Expires", None)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response

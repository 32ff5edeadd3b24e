"""GET /: the progress page, a static page that follows the stream endpoint in the browser.

Its script and style are served from the app's own static folder (`app/static`, at
`/static/...`), so the page needs no build step and nothing from outside the service. The
page links its script and styles with their content hash (`?v=`), so a browser keeps them
until they change (app/static_cache.py).
"""

from __future__ import annotations

from pathlib import Path

from quart import Blueprint, Response, current_app
from quart_schema import hide

from app.static_cache import static_version

blueprint = Blueprint("page", __name__)

PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page loads only its own files and talks only to this service."""
VERSIONED = ("app.js", "app.css", "chat.css")
"""The files index.html links with `?v=<content hash>`."""


@blueprint.get("/")
@hide  # a page, not part of the JSON API
async def progress_page() -> Response:
    """Serve the page that asks a question and shows the run's progress and answer."""
    html = (Path(str(current_app.static_folder)) / "index.html").read_text(encoding="utf-8")
    for name in VERSIONED:
        html = html.replace(f'"static/{name}"', f'"static/{name}?v={static_version(name)}"')
    response = Response(html, content_type="text/html; charset=utf-8")
    response.headers["Content-Security-Policy"] = PAGE_CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-cache"
    return response

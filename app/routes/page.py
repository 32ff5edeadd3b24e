"""GET /: the progress page, a static page that follows the stream endpoint in the browser.

Its script and style are served from the app's own static folder (`app/static`, at
`/static/...`), so the page needs no build step and nothing from outside the service.
"""

from __future__ import annotations

from quart import Blueprint, Response, current_app
from quart_schema import hide

blueprint = Blueprint("page", __name__)

PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page loads only its own files and talks only to this service."""


@blueprint.get("/")
@hide  # a page, not part of the JSON API
async def progress_page() -> Response:
    """Serve the page that asks a question and shows the run's progress and answer."""
    response = await current_app.send_static_file("index.html")
    response.headers["Content-Security-Policy"] = PAGE_CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response

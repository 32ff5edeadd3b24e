"""GET /static/…: the page's files from the compressed cache (app/static_cache.py).

Gzipped when the browser takes it, with an ETag (304 on a revalidation) and a Cache-Control
that keeps versioned and vendored files and revalidates the page's own modules.
"""

from __future__ import annotations

import asyncio

from quart import Blueprint, Response, current_app, request

from app.static_cache import cache_control, find_static_file

blueprint = Blueprint("static_files", __name__)

STATIC_PREFIX = "/static/"


@blueprint.before_app_request
async def serve_static_file() -> Response | None:
    """Answer GET /static/… from the compressed cache; anything else goes on as usual."""
    if request.method not in ("GET", "HEAD") or not request.path.startswith(STATIC_PREFIX):
        return None
    if request.headers.get("Range") or current_app.static_folder is None:
        return None  # ranges (never asked by the page) are Quart's own static route's job
    relative = request.path[len(STATIC_PREFIX) :]
    folder = str(current_app.static_folder)
    served = await asyncio.to_thread(find_static_file, folder, relative)
    if served is None:
        return None  # Quart's route answers 404
    headers = {
        "ETag": f'"{served.etag}"',
        "Cache-Control": cache_control(relative, request.args.get("v"), served),
        "Vary": "Accept-Encoding",
        "X-Content-Type-Options": "nosniff",
    }
    if served.etag in request.if_none_match:
        return Response(b"", status=304, headers=headers)
    body = served.body
    if served.gzipped is not None and "gzip" in request.accept_encodings:
        body = served.gzipped
        headers["Content-Encoding"] = "gzip"
    return Response(body, status=200, headers=headers, content_type=served.content_type)

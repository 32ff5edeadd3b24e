"""The page's static files as served: read and gzipped once per version, with an ETag.

The hook in app/routes/web/static_files.py sends them with the Cache-Control chosen here.

The page has no build step, so names carry no hash; instead every file has a strong ETag (its
content's hash) and a revalidation answers 304. `?v=<that hash>` (the page links its own
script and styles so) is cached for a year as immutable; vendored libraries, which change only
with an upgrade, for a day; the page's own modules are revalidated on each load (`no-cache`).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from quart import current_app
from werkzeug.security import safe_join

COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
MIN_COMPRESS_BYTES = 1024
"""Smaller files are sent as they are: gzip's header would be most of the saving."""
IMMUTABLE = "public, max-age=31536000, immutable"
VENDOR = "public, max-age=86400"
OWN = "no-cache"


@dataclass(frozen=True)
class StaticFile:
    """One file as served: its bytes, their gzip, type and hash."""

    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str


_files: dict[tuple[str, int, int], StaticFile] = {}
"""(path, mtime_ns, size) → the file as served: each version is read and compressed once."""


def load_static_file(path: Path) -> StaticFile:
    """Return `path` ready to serve (cached until it changes on disk)."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    found = _files.get(key)
    if found is not None:
        return found
    body = path.read_bytes()
    content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type == "application/javascript":
        content_type += "; charset=utf-8"
    compress = content_type.startswith(COMPRESSIBLE) and len(body) >= MIN_COMPRESS_BYTES
    gzipped = gzip.compress(body, compresslevel=9, mtime=0) if compress else None
    served = StaticFile(body, gzipped, content_type, hashlib.sha256(body).hexdigest()[:16])
    _files[key] = served
    return served


def find_static_file(folder: str, relative: str) -> StaticFile | None:
    """Return the file at `relative` under `folder` ready to serve; None if there is none."""
    path = safe_join(folder, relative)
    if path is None or not Path(path).is_file():
        return None
    return load_static_file(Path(path))


def static_version(relative: str) -> str:
    """Return the content hash `?v=` of a file under the static folder (for the page's links)."""
    folder = current_app.static_folder
    path = safe_join(str(folder), relative) if folder else None
    return load_static_file(Path(path)).etag if path else ""


def cache_control(relative: str, version: str | None, served: StaticFile) -> str:
    """Immutable when the URL names this content, a day for vendored files, else revalidate."""
    if version and version == served.etag:
        return IMMUTABLE
    return VENDOR if relative.startswith("vendor/") else OWN

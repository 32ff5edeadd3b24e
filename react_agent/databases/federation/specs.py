"""Named data sources: `DATA_SOURCES` read as `name=url;name=url` or a YAML file of them."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from react_agent.errors import ConfigurationError

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
RESERVED_NAMES = frozenset({"main", "public", "memory", "system", "temp", "information_schema"})
"""Names DuckDB or the engines already give a meaning to: no source may take one."""


@dataclass(frozen=True)
class SourceSpec:
    """One named source: the name its tables are qualified with, its URL and description."""

    name: str
    url: str
    description: str = ""
    owner: str | None = None
    """The user a private source (an upload) belongs to; None for the shared sources."""
    max_concurrent: int = 0
    """Statements it runs at once (its fair share); 0: DATA_SOURCE_MAX_CONCURRENT's rule."""


def parse_sources(text: str) -> tuple[SourceSpec, ...]:
    """Return the sources `DATA_SOURCES` names: inline `name=url;…` or a YAML file's path.

    The YAML file holds `sources:` as a list of `{name, url, description, max_concurrent}`
    or a mapping of name → url or name → `{url, description, max_concurrent}`.

    Raises:
        ConfigurationError: a malformed entry, a bad or repeated name, a missing file.

    """
    text = text.strip()
    if not text:
        return ()
    if "=" in text.split(";", 1)[0] and not text.lower().endswith((".yaml", ".yml")):
        specs = [_inline(part) for part in text.split(";") if part.strip()]
    else:
        specs = _from_file(Path(text))
    names = [spec.name for spec in specs]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise _bad(f"source names must differ: {', '.join(repeated)} given twice")
    return tuple(specs)


def _inline(part: str) -> SourceSpec:
    name, sep, url = part.partition("=")
    if not sep or not url.strip():
        raise _bad(f"write name=url, not {part.split(':', 1)[0]!r}")
    return _spec(name, url, "")


def _from_file(path: Path) -> list[SourceSpec]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise _bad(f"cannot read {path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise _bad(f"{path} is not YAML: {exc}") from exc
    entries = data.get("sources", data) if isinstance(data, dict) else data
    if isinstance(entries, dict):
        entries = [
            {"name": name, **(value if isinstance(value, dict) else {"url": value})}
            for name, value in entries.items()
        ]
    if not isinstance(entries, list):
        raise _bad(f"{path}: `sources` must be a list or a mapping")
    specs = []
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("name") or not entry.get("url"):
            raise _bad(f"{path}: each source needs a name and a url")
        spec = _spec(str(entry["name"]), str(entry["url"]), entry.get("description"))
        specs.append(replace(spec, max_concurrent=_limit(path, entry.get("max_concurrent"))))
    return specs


def _spec(name: str, url: str, description: object) -> SourceSpec:
    name = name.strip()
    if not _NAME.match(name) or name in RESERVED_NAMES:
        raise _bad(
            f"source name {name!r}: use lower-case letters, digits and _ (a letter first), "
            f"none of {', '.join(sorted(RESERVED_NAMES))}"
        )
    return SourceSpec(name, url.strip(), str(description or "").strip())


def _limit(path: Path, value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _bad(f"{path}: max_concurrent must be a whole number of at least 1, not {value!r}")
    return value


def _bad(detail: str) -> ConfigurationError:
    return ConfigurationError("DATA_SOURCES", f"DATA_SOURCES: {detail}")

"""DuckDB over a folder of data files or a .duckdb file: loading files, engine, catalogue."""

from __future__ import annotations

from typing import Any

from react_agent.errors import ConfigurationError


async def open_url(url: str, *, file_options: dict[str, Any], pool_options: dict[str, Any]) -> Any:
    """Open the `duckdb:///folder` that `url` names (the registry's opener)."""
    from react_agent.databases.duckdb.files import DuckDBFiles, duckdb_path_from_url

    location = duckdb_path_from_url(url).resolve()
    if not location.exists():  # a setting to change, not an outage to wait out
        raise ConfigurationError(
            "DATA_DATABASE_URL",
            f"DATA_DATABASE_URL: no such folder or file: {location}; set it to a folder "
            "of data files or a .duckdb file (duckdb:///relative or duckdb:////absolute)",
        )
    return await DuckDBFiles.open(url, **file_options)

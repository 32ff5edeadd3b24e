"""What is wrong with the settings given: a bad value in one line, a name that looks like ours."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path

from dotenv import dotenv_values
from pydantic import ValidationError
from pydantic_settings import BaseSettings

from config.masking import mask_url_password
from config.settings_doc import env_name

CLOSE_SPELLING = 0.85
"""difflib's ratio from which a name that is not ours is taken for a misspelling of one."""

FAMILY_SUGGESTION = 0.6
"""The lower ratio for a name of one of our families (`POLICY_…`): the setting it meant."""

FOREIGN_PREFIXES = ("OTEL_", "PYTHON", "LC_", "XDG_", "SSH_", "npm_", "PIP_", "UV_")
"""Families other programs read: the OpenTelemetry SDK's own variables, the shell's, …"""

FOREIGN_NAMES = frozenset(
    {
        "OPENAI_ORG_ID",
        "OPENAI_ORGANIZATION",
        "OPENAI_PROJECT_ID",
        "OPENAI_LOG",
        "OPENAI_API_BASE",  # read by langchain-openai itself
        "POSTGRES_USER",  # the postgres image's variables, often beside ours in compose
        "POSTGRES_PASSWORD",
        "POSTGRES_DB",
        "POSTGRES_HOST_AUTH_METHOD",
        "POSTGRES_INITDB_ARGS",
        "MYSQL_ROOT_PASSWORD",  # the mysql and mariadb images' variables
        "MYSQL_DATABASE",
        "MYSQL_USER",
        "MYSQL_PASSWORD",
        "MYSQL_ALLOW_EMPTY_PASSWORD",
        "MYSQL_RANDOM_ROOT_PASSWORD",
        "DATABASE_URL",
    }
)
"""Names in our families that are another program's, never a misspelling of ours."""


def env_names(settings_class: type[BaseSettings]) -> dict[str, bool]:
    """Return each setting's environment variable, and whether its value is a secret."""
    names = {}
    for name, field in settings_class.model_fields.items():
        secret = field.annotation is not None and "SecretStr" in str(field.annotation)
        names[env_name(name, field)] = secret
    return names


def validation_problem(error: ValidationError, settings_class: type[BaseSettings]) -> str:
    """Return the one line that names each setting with a bad value, and what is wrong."""
    by_field = {name: env_name(name, field) for name, field in settings_class.model_fields.items()}
    secrets = env_names(settings_class)
    parts = []
    for item in error.errors(include_url=False):
        field = str(item["loc"][0]) if item["loc"] else ""
        setting = by_field.get(field, field.upper())
        value = item.get("input")
        shown = ""
        if isinstance(value, str | int | float) and not secrets.get(setting):
            shown = f" (got {mask_url_password(str(value))!r})"
        parts.append(f"{setting}: {item['msg']}{shown}")
    return "; ".join(parts) or str(error).splitlines()[0]


def misspelt_settings(
    environ: Mapping[str, str],
    settings_class: type[BaseSettings],
    dotenv_path: Path | None = Path(".env"),
) -> list[str]:
    """Return one warning per variable that looks like one of our settings but is none.

    A name counts when it is a close spelling of a setting (`POLICY_FLIE`,
    `OPENAI_BASEURL`), or when it starts like a family of ours (`POLICY_`, `LLM_`) and
    names no setting; other programs' variables (`PATH`, `OTEL_SERVICE_NAME`,
    `POSTGRES_PASSWORD`) are never named.
    """
    ours = list(env_names(settings_class))
    known = set(ours)
    families = _families(ours)
    given = {name: "environment" for name in environ}
    if dotenv_path is not None and dotenv_path.is_file():
        given.update({name: str(dotenv_path) for name in dotenv_values(dotenv_path)})
    warnings = []
    for name, where in sorted(given.items()):
        upper = name.upper()
        if upper in known or upper in FOREIGN_NAMES or upper.startswith(FOREIGN_PREFIXES):
            continue
        close = difflib.get_close_matches(upper, ours, n=1, cutoff=CLOSE_SPELLING)
        in_family = any(upper.startswith(prefix) for prefix in families)
        if not close and in_family:
            close = difflib.get_close_matches(upper, ours, n=1, cutoff=FAMILY_SUGGESTION)
        if close:
            warnings.append(f"{name} (in the {where}) is not a setting; did you mean {close[0]}?")
        elif in_family:
            warnings.append(f"{name} (in the {where}) is not a setting (see docs/settings.md)")
    return warnings


def _families(names: Iterable[str]) -> set[str]:
    """Return the prefixes (`POLICY_`, `LLM_`) of our settings."""
    return {name.split("_", 1)[0] + "_" for name in names if "_" in name}

"""docs/settings.md is generated from the Settings fields, mixins included, and kept fresh."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings

from config import Settings
from config.settings_doc import (
    REGENERATE_COMMAND,
    fields_without_description,
    render_settings_page,
)

SETTINGS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_docs_settings_page_matches_the_settings_fields():
    written = SETTINGS_PAGE.read_text(encoding="utf-8")
    assert written == render_settings_page(), (
        f"docs/settings.md is stale: regenerate it with `{REGENERATE_COMMAND}`"
    )


def test_every_setting_has_a_description():
    assert fields_without_description() == []


def test_the_page_lists_every_setting_as_its_environment_variable():
    page = render_settings_page()
    for name in Settings.model_fields:
        assert f"| `{name.upper()}` |" in page


class _ReportingSettings(BaseSettings):
    """Reporting: where the weekly report goes."""

    report_url: str = Field(default="https://example.org/r", description="Where | it goes.")
    report_secret_days: int = Field(default=7, description="Days between reports.")


class _SettingsWithAMixin(Settings, _ReportingSettings):
    """Settings plus a mixin, as `config/<area>_settings.py` modules add them."""


def test_a_mixins_fields_get_a_section_named_by_its_docstring():
    page = render_settings_page(_SettingsWithAMixin)
    core, _, reporting = page.partition("\n## Reporting: where the weekly report goes\n")
    assert "| `LLM_MODEL` |" in core and "REPORT_URL" not in core
    assert "| `REPORT_URL` | `https://example.org/r` | Where \\| it goes. |" in reporting
    assert "| `REPORT_SECRET_DAYS` | `7` | Days between reports. |" in reporting
    assert "LLM_MODEL" not in reporting


def test_a_field_without_description_is_reported():
    class Bare(BaseSettings):
        """Bare."""

        nothing_said: int = 1

    assert fields_without_description(Bare) == ["NOTHING_SAID"]

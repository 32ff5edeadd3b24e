"""Configuration shared by the web layer and the agent: settings, node display map, messages."""

from config.display import node_display
from config.i18n import DEFAULT_LANG, SUPPORTED_LANGS, localize, resolve_lang
from config.settings import Settings

__all__ = [
    "DEFAULT_LANG",
    "SUPPORTED_LANGS",
    "Settings",
    "localize",
    "node_display",
    "resolve_lang",
]

"""A LangGraph ReAct agent that answers questions about a SQL database; no web code here."""

from importlib.metadata import PackageNotFoundError, version

try:
    AGENT_VERSION = version("sql-react-agent-service")
except PackageNotFoundError:  # running from a checkout that was never installed
    AGENT_VERSION = "0.0.0+local"

__all__ = ["AGENT_VERSION"]

"""The service, built once per process: its parts, their health, and how they are assembled."""

from react_agent.service.assembly import open_agent_service
from react_agent.service.components import check_components, describe_components
from react_agent.service.state import AgentService

__all__ = [
    "AgentService",
    "check_components",
    "describe_components",
    "open_agent_service",
]

"""What a degraded start says: one line per part missing, naming the settings that give it."""

from __future__ import annotations

from react_agent.service.state import AgentService


def degraded_start_lines(service: AgentService) -> list[str]:
    """Return one line for each part the service opened without, or with nothing to read.

    The service still starts (the parts on PostgreSQL or MySQL come back by themselves),
    but an operator reading the console should not have to ask /ready to learn it.
    """
    settings = service.settings
    lines = []
    if "llm" in service.problems:
        lines.append(
            "no LLM is configured: questions are refused (503 LLM_NOT_CONFIGURED) until "
            "OPENAI_API_KEY or OPENAI_BASE_URL (and LLM_MODEL) are set"
        )
    data = service.problems.get("data_database")
    if data is not None:
        lines.append(f"the data database (DATA_DATABASE_URL) is not available: {data.detail}")
    elif service.database is not None and not service.tables:
        allowed = settings.sql_allowed_tables.strip()
        within = f" within SQL_ALLOWED_TABLES={allowed}" if settings.allowed_tables else ""
        lines.append(
            f"the data database (DATA_DATABASE_URL) has no tables to read{within}: "
            "every question will find nothing"
        )
    checkpointer = service.problems.get("checkpointer")
    if checkpointer is not None:
        lines.append(
            "the conversation store (CHECKPOINT_DATABASE_URL) is not available: "
            f"{checkpointer.detail}"
        )
    if service.memory is None and service.memory_problem is not None:
        lines.append(
            "the memory (MEMORY_DATABASE_URL) is not available, answers come without examples: "
            f"{service.memory_problem.detail}"
        )
    return lines

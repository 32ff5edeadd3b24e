"""The quotas' counters live in the audit's ledger database: the same fixture, both kinds."""

from tests.react_agent.audit.conftest import ledger_database  # noqa: F401

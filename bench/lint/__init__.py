"""Benchmarks of the SQL lint (react_agent/lint)."""

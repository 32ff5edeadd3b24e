"""Benchmarks of the agent's features: history disclosure, sub-agents."""

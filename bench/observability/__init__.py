"""Benchmark of observability: metrics and traces on vs off."""

"""Benchmark of the service against its own graph and its peers (`python -m bench`)."""

"""The named sources '  benchmarks: a two-source join, federated vs one database (join.py)."""

"""Benchmarks of the access policy: the scope rewrite, throughput with it, the audit's cost."""

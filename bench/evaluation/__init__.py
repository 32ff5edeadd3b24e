"""Benchmarks of evaluation: the answer check per answer, the harness's throughput."""

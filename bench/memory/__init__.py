"""Benchmarks of the memory: retrieval time, throughput with the memory on, a reviewed memory."""

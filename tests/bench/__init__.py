"""Tests of the benchmark's own code (its report; no benchmark runs)."""

"""Tests of the web layer: the memory: ratings, training data, retrieval, suggestions."""

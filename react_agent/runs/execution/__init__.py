"""Executing a run: the graph streamed for one question, its result tallied, its answer reviewed."""

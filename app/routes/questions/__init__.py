"""Asking: the sync and streamed ask routes, runs by id, suggested questions."""

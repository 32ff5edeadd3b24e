"""Metrics, traces and log context: listeners on the run events, off unless configured."""

"""The HTTP side of metrics, traces and logs: request hooks, the log format (off by default)."""

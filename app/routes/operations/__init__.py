"""Running the service: /health, /ready and /metrics."""

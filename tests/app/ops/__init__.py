"""Tests of the web layer: running the service: the server, workers, health, OpenAPI, outages."""

"""Load drivers: one question per call, over HTTP (SSE, sync, LangGraph's server) or in process."""

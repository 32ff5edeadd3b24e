"""The stream: run events as numbered envelopes, framed as SSE or NDJSON, for followers."""

"""The OpenAI-compatible chat API (`/v1/models`, `/v1/chat/completions`) over the same runs."""

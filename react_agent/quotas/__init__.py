"""Per-user quotas: questions per minute and model tokens per day, counted in a shared table."""

"""Where runs are kept: events, thread claims and thread ids, in memory or PostgreSQL."""

"""A user's conversations: read, renamed or deleted, their results exported."""

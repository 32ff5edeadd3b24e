"""The engines benchmark: the generic SQLAlchemy engine against the native ones (#49)."""

"""Admission: how many runs at once (a FIFO beyond the limit, auto-sized) and busy threads."""

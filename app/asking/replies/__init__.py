"""What a client reads of a run: its final data, a pause's data, the guard's reasons, sub-agents."""

"""Where conversations are kept (checkpointers) and how they are read back."""

"""The agent's memory: rated answers, question→SQL examples and notes, and their retrieval."""

"""Evaluation: golden sets of questions with their SQL, scored by executing both."""

"""Sensitive values: which output columns carry them (lineage), their tokens before the model."""

"""The schema catalogue: tables, columns, keys, comments, row estimates and sample values."""

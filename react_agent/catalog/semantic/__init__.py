"""The semantic file (SEMANTIC_FILE): the business's words for the schema, checked against it."""

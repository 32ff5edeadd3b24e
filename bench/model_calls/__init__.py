"""Model calls, tokens and prompt prefixes per question, before and after #48."""

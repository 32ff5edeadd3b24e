"""Statements under a scope: the parse-tree rewrite, running it, its columns, stored SQL reach."""

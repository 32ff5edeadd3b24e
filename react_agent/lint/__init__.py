"""SQL lint: named rules that catch a query that runs but answers the wrong thing."""

"""What is made of query results for people: chart suggestions and CSV exports."""

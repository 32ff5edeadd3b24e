"""The tools the model calls and the SQL guard they share."""

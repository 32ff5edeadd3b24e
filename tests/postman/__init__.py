"""End-to-end checks of the API contract with the Postman collection, run by newman."""

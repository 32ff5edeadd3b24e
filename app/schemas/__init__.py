"""Request and response models of the endpoints, for validation and the OpenAPI document."""

"""The server: Hypercorn in one process or N workers on one port, and the ASGI front."""

"""The sides compared with our service: LangGraph's server, the Flask design, the graph."""

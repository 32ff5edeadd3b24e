"""The MCP server: the agent's data tools for agent hosts, over streamable HTTP and stdio."""

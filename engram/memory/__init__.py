"""Memory operations: the service layer every surface (CLI, MCP tools, hooks) calls."""

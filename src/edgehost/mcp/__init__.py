"""MCP side of the host: server configuration, one supervisor task per server, the catalog."""

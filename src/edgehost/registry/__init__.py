"""Servers from the MCP Registry: its REST API with a cache (client), server.json read into plain data
(server_json), and the ways to run an entry here as server entries (install). Qt-free."""

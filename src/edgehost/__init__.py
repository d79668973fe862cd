"""EdgeHost: a desktop MCP host for RK3588 edge boards with an on-device LLM."""

__version__ = "0.1.0"
APP_NAME = "edgehost"

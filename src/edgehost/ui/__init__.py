"""ui layer (see ../shared/ARCHITECTURE.md)."""

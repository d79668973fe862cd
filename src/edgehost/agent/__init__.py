"""agent layer (see ../shared/ARCHITECTURE.md)."""

"""servers layer (see ../shared/ARCHITECTURE.md)."""

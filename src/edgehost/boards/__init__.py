"""boards layer (see ../shared/ARCHITECTURE.md)."""

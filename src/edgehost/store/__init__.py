"""store layer (see ../shared/ARCHITECTURE.md)."""

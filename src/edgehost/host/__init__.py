"""host layer (see ../shared/ARCHITECTURE.md)."""

"""The web face: the Host served on the LAN as one chat page (edgehost web)."""

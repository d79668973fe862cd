"""MCPB bundles: the manifest (manifest) and installing one into the data folder (installing). Qt-free."""

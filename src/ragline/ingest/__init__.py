"""Ingestion: load sources into Documents, split them into Chunks."""

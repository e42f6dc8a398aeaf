"""ragline's version, defined here once: ``pyproject.toml`` reads it (setuptools'
dynamic version), and the API, the MCP server, tracing and the client report it."""

__version__ = "0.1.0"

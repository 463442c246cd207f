"""A local MCP server package, installed into a venv by the tests."""

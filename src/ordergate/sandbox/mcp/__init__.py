"""The venue's MCP methods and fault hooks, served by the shared transport
(``ordergate.mcpserve``)."""

from ordergate.sandbox.mcp._faults import VenueFaults
from ordergate.sandbox.mcp._methods import Methods, ServerIdentity

__all__ = ["Methods", "ServerIdentity", "VenueFaults"]

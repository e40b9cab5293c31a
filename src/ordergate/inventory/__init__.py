"""The captured Robinhood Agentic MCP tool surface, shared by the client and the sandbox."""

from ordergate.inventory._load import ToolClass, ToolSpec, load_inventory

__all__ = ["ToolClass", "ToolSpec", "load_inventory"]

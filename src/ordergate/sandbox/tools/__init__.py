"""The sandbox's implementation of every Robinhood tool, and the table that serves them."""

from ordergate.sandbox.tools._registry import ToolHandler, VenueError, handlers, tool
from ordergate.sandbox.tools._table import ToolTable, UnknownTool, error_result
from ordergate.sandbox.tools._validation import ArgumentValidator

__all__ = [
    "ArgumentValidator",
    "ToolHandler",
    "ToolTable",
    "UnknownTool",
    "VenueError",
    "error_result",
    "handlers",
    "tool",
]

"""ordergate: a guarded gateway and toolkit for AI agents trading a Robinhood Agentic account."""

from __future__ import annotations

from ordergate.core import ConfigError, DecimalFieldError, OrdergateError, ToolError

__all__ = ["ConfigError", "DecimalFieldError", "OrdergateError", "ToolError", "__version__"]


def __getattr__(name: str) -> str:
    # Read from the installed metadata on first use: importlib.metadata costs every command
    # (``ordergate --help`` too) tens of milliseconds at start-up.
    if name == "__version__":
        from importlib.metadata import version

        return version("ordergate")
    raise AttributeError(f"module 'ordergate' has no attribute {name!r}")

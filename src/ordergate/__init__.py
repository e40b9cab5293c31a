"""ordergate: a guarded gateway and toolkit for AI agents trading a Robinhood Agentic account."""

from importlib.metadata import version as _version

from ordergate.core import ConfigError, DecimalFieldError, OrdergateError, ToolError

__version__ = _version("ordergate")

__all__ = ["ConfigError", "DecimalFieldError", "OrdergateError", "ToolError", "__version__"]

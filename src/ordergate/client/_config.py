"""Where the client connects and who it says it is."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ordergate import __version__

__all__ = ["DEFAULT_URL", "Config", "ordergate_home"]

DEFAULT_URL = "https://agent.robinhood.com/mcp/trading"


def ordergate_home() -> Path:
    """``ORDERGATE_HOME``, else ``~/.ordergate``."""
    configured = os.environ.get("ORDERGATE_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".ordergate"


def _default_token_file() -> Path:
    return ordergate_home() / "robinhood-tokens.json"


@dataclass(frozen=True, slots=True)
class Config:
    """``name``/``version`` are sent as the MCP client info and the OAuth client name."""

    url: str = DEFAULT_URL
    token_file: Path = field(default_factory=_default_token_file)
    name: str = "ordergate"
    version: str = __version__

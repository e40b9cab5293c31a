"""Where the client connects and who it says it is."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ordergate import __version__
from ordergate.client._servers import unbound
from ordergate.client._tokens import read_token_file

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
    """``name``/``version`` are sent as the MCP client info and the OAuth client name.

    ``url`` defaults to Robinhood's endpoint, which is where ``ordergate login`` signs in;
    every other command uses ``Config.signed_in()``: the server the token file was issued
    for.
    """

    url: str = DEFAULT_URL
    token_file: Path = field(default_factory=_default_token_file)
    name: str = "ordergate"
    version: str = __version__

    @classmethod
    def signed_in(cls, token_file: Path | None = None) -> Config:
        """The server the token file (default: the usual one) was issued for. Raises
        ``LoginRequired`` when there is no token file or it does not record its server."""
        path = token_file or _default_token_file()
        server = read_token_file(path).server
        if server is None:
            raise unbound(path)
        return cls(url=server, token_file=path)

"""A typed async client for Robinhood's Agentic Trading MCP.

::

    from ordergate.client import Config, connect, login

    await login(Config())                    # once: browser sign-in, token file written
    async with connect() as rh:               # every run: one MCP session, to that server
        account = await rh.accounts.agentic()

Every failure is a ``ToolError`` (``ordergate.ToolError``); ``LoginRequired`` means run
``ordergate login``, and its ``WrongServer`` that the saved tokens belong to another server
(they are sent only to the one they were issued for).
"""

from ordergate.client._auth import Refresh
from ordergate.client._caller import Caller
from ordergate.client._config import DEFAULT_URL, Config, ordergate_home
from ordergate.client._errors import (
    BusinessError,
    HTTPStatusError,
    LoginRequired,
    ResponseParseError,
    RpcError,
    ToolError,
    TransportError,
)
from ordergate.client._jsonrpc import JsonRpcCaller
from ordergate.client._login import ENV_ACCESS_TOKEN, ENV_REFRESH_TOKEN, login
from ordergate.client._robinhood import Robinhood, ServerInfo
from ordergate.client._servers import WrongServer
from ordergate.client._session import connect, connect_with
from ordergate.client._tokens import TokenSet, read_token_file, write_token_file

__all__ = [
    "DEFAULT_URL",
    "ENV_ACCESS_TOKEN",
    "ENV_REFRESH_TOKEN",
    "BusinessError",
    "Caller",
    "Config",
    "HTTPStatusError",
    "JsonRpcCaller",
    "LoginRequired",
    "Refresh",
    "ResponseParseError",
    "Robinhood",
    "RpcError",
    "ServerInfo",
    "TokenSet",
    "ToolError",
    "TransportError",
    "WrongServer",
    "connect",
    "connect_with",
    "login",
    "ordergate_home",
    "read_token_file",
    "write_token_file",
]

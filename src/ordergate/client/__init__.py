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

from typing import TYPE_CHECKING, Any

from ordergate.client._auth import Refresh
from ordergate.client._caller import Caller
from ordergate.client._coalesce import coalesce
from ordergate.client._config import DEFAULT_URL, Config, ordergate_home
from ordergate.client._deferred import DeferredCaller
from ordergate.client._envelope import result_data
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
from ordergate.client._models import field_name
from ordergate.client._pages import MAX_PAGES
from ordergate.client._rfc6749 import request_tokens, request_tokens_blocking
from ordergate.client._robinhood import Robinhood, ServerInfo
from ordergate.client._servers import WrongServer
from ordergate.client._tokens import TokenSet, read_token_file, write_token_file
from ordergate.client._wire import Wire, WireAnswer

if TYPE_CHECKING:
    from ordergate.client._discovery import AuthorizationServer, discover
    from ordergate.client._login import ENV_ACCESS_TOKEN, ENV_REFRESH_TOKEN, login
    from ordergate.client._registration import register
    from ordergate.client._session import connect, connect_with

# Signing in (discovery, registration, login) uses the MCP SDK's OAuth helpers, whose import
# (hundreds of pydantic models) costs about a second: they are imported on first use, so a
# command that only opens a session (``ordergate status``) or reads the configuration never
# pays for it. ``connect`` needs no SDK (its handshake is plain JSON-RPC) but stays lazy too.
_LAZY = {
    "AuthorizationServer": "ordergate.client._discovery",
    "discover": "ordergate.client._discovery",
    "register": "ordergate.client._registration",
    "ENV_ACCESS_TOKEN": "ordergate.client._login",
    "ENV_REFRESH_TOKEN": "ordergate.client._login",
    "login": "ordergate.client._login",
    "connect": "ordergate.client._session",
    "connect_with": "ordergate.client._session",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ordergate.client' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_URL",
    "ENV_ACCESS_TOKEN",
    "ENV_REFRESH_TOKEN",
    "MAX_PAGES",
    "AuthorizationServer",
    "BusinessError",
    "Caller",
    "Config",
    "DeferredCaller",
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
    "Wire",
    "WireAnswer",
    "WrongServer",
    "coalesce",
    "connect",
    "connect_with",
    "discover",
    "field_name",
    "login",
    "ordergate_home",
    "read_token_file",
    "register",
    "request_tokens",
    "request_tokens_blocking",
    "result_data",
    "write_token_file",
]

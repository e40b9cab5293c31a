"""The sandbox venue: a faithful simulation of Robinhood's Agentic Trading MCP on loopback.

A real server on real sockets: an OAuth 2.1 authorization server as observed live, a
streamable-HTTP MCP endpoint at ``/mcp/trading`` serving every captured tool, and a market
with an order engine behind them. One unnamed user by default; named users (``--user``) each
trade their own accounts, signing in on the venue's page with their name and password.
The Crypto Trading REST venue's routes (``rest_routes``) serve any venue's crypto desk: the
sandbox's, or a paper book's in process.
"""

from ordergate.mcpserve import Framing
from ordergate.sandbox._app import MCP_PATH, Sandbox, SandboxUser, build_sandbox
from ordergate.sandbox._config import DEFAULT_PORT, SandboxConfig
from ordergate.sandbox._crypto_rest import RestKeys, RestRun, named_pairs, rest_routes
from ordergate.sandbox._serve import serve_forever
from ordergate.sandbox._server import SandboxServer

__all__ = [
    "DEFAULT_PORT",
    "MCP_PATH",
    "Framing",
    "RestKeys",
    "RestRun",
    "Sandbox",
    "SandboxConfig",
    "SandboxServer",
    "SandboxUser",
    "build_sandbox",
    "named_pairs",
    "rest_routes",
    "serve_forever",
]

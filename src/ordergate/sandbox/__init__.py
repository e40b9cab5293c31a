"""The sandbox venue: a faithful simulation of Robinhood's Agentic Trading MCP on loopback.

A real server on real sockets: an OAuth 2.1 authorization server as observed live, a
streamable-HTTP MCP endpoint at ``/mcp/trading`` serving every captured tool, and a market
with an order engine behind them. One unnamed user by default; named users (``--user``) each
trade their own accounts, signing in on the venue's page with their name and password.
"""

from ordergate.mcpserve import Framing
from ordergate.sandbox._app import MCP_PATH, Sandbox, SandboxUser, build_sandbox
from ordergate.sandbox._config import DEFAULT_PORT, SandboxConfig
from ordergate.sandbox._serve import serve_forever
from ordergate.sandbox._server import SandboxServer

__all__ = [
    "DEFAULT_PORT",
    "MCP_PATH",
    "Framing",
    "Sandbox",
    "SandboxConfig",
    "SandboxServer",
    "SandboxUser",
    "build_sandbox",
    "serve_forever",
]

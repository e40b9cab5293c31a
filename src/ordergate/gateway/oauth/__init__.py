"""The gateway's own OAuth 2.1 authorization server, owner mode (issue 6 §2).

An MCP client registers (RFC 7591, a public client of its own), sends the owner to the
consent page (PKCE S256, ``state``, ``resource``), and on approval gets a single-use code for
a new connection to the owner's upstream session, then rotating tokens. Only SHA-256 of any
code, token or nonce is stored. ``GatewayAuth`` is the whole server; ``AccessVerifier`` is
what the MCP endpoint asks about each bearer token; ``GatewayStore`` keeps the state and the
connections' lifecycle (touch, idle erasure, dead, erase).
"""

from ordergate.gateway.oauth._records import Connection, Grant
from ordergate.gateway.oauth._server import GatewayAuth
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.gateway.oauth._verifier import AccessVerifier

__all__ = ["AccessVerifier", "Connection", "GatewayAuth", "GatewayStore", "Grant"]

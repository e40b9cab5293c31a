"""The sandbox venue's OAuth 2.1 authorization server, a copy of the live Robinhood one.

``ordergate.oauth``'s one server with the live venue's quirks: RFC 9728 protected-resource
metadata, RFC 8414 server metadata, RFC 7591 registration that answers everybody with one
shared public client id, the authorization endpoint with a consent page, PKCE S256 only
(RFC 7636), scope ``internal``, and a token endpoint with single-use codes and rotating
refresh tokens. Tokens are stored only as SHA-256 hashes.
"""

from ordergate.sandbox.oauth._grants import AccessGrant, TokenPair
from ordergate.sandbox.oauth._server import SHARED_CLIENT_ID, OAuthServer

__all__ = ["SHARED_CLIENT_ID", "AccessGrant", "OAuthServer", "TokenPair"]

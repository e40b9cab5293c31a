"""The sandbox venue's OAuth 2.1 authorization server, a copy of the live Robinhood one.

``ordergate.oauth``'s one server with the live venue's quirks: RFC 9728 protected-resource
metadata, RFC 8414 server metadata, RFC 7591 registration that answers everybody with one
shared public client id, the authorization endpoint with a consent page, PKCE S256 only
(RFC 7636), scope ``internal``, and a token endpoint with single-use codes and rotating
refresh tokens. Tokens are stored only as SHA-256 hashes. Where the sandbox has named users,
the consent page signs one in with their password, and their tokens are theirs (``subject``).
"""

from ordergate.sandbox.oauth._grants import SANDBOX_SUBJECT, AccessGrant, TokenPair
from ordergate.sandbox.oauth._server import SHARED_CLIENT_ID, OAuthServer
from ordergate.sandbox.oauth._users import WRONG_CREDENTIALS, user_password

__all__ = [
    "SANDBOX_SUBJECT",
    "SHARED_CLIENT_ID",
    "WRONG_CREDENTIALS",
    "AccessGrant",
    "OAuthServer",
    "TokenPair",
    "user_password",
]

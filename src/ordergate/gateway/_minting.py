"""For benchmarks and tests only: a gateway access token without the browser.

``mint_owner_tokens`` does in one call what a client and the owner do across the consent
page: it registers a public client (loopback redirect), opens a fresh owner connection for it
with a single-use code bound to a PKCE S256 challenge, and exchanges that code with its
verifier, all through the store's own methods (``register_client``, ``grants.issue_code``,
``grants.exchange_code``, which applies the shared rule, ``ordergate.oauth.code_refusal``), so
the tokens are exactly what the token endpoint would hand out.
The owner's approval is what it skips: nothing in the gateway's request paths calls it.

The pair is returned to the caller and nowhere else: never logged, and its ``repr`` hides both
values.
"""

from __future__ import annotations

import secrets

from ordergate.gateway.oauth import GatewayStore
from ordergate.gateway.oauth._records import SCOPE
from ordergate.oauth import Authorization, CodeExchange, IssuedTokens, Refusal, s256_challenge

__all__ = ["mint_owner_tokens"]

_REDIRECT = "http://127.0.0.1/callback"


def mint_owner_tokens(
    store: GatewayStore, *, client_name: str, resource: str, profile: str = "trader"
) -> IssuedTokens:
    """A new client on a new owner connection with ``profile``, and its first token pair.
    ``resource`` is the gateway's MCP URL (RFC 8707); ``RuntimeError`` if the store refuses
    the exchange."""
    client = store.register_client(client_name=client_name, redirect_uris=(_REDIRECT,))
    verifier = secrets.token_urlsafe(48)
    code = store.grants.issue_code(
        Authorization(
            client_id=client.client_id,
            redirect_uri=_REDIRECT,
            code_challenge=s256_challenge(verifier),
            scope=SCOPE,
            state=None,
            resource=resource,
            profile=profile,
        )
    )
    pair = store.grants.exchange_code(
        CodeExchange(
            code=code, client_id=client.client_id, redirect_uri=_REDIRECT, code_verifier=verifier
        )
    )
    if isinstance(pair, Refusal):
        raise RuntimeError(f"the gateway's store refused the code: {pair.description}")
    return pair

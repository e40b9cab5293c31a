"""The storage protocol behind the one set of OAuth handlers, and the records it hands around.

Shaped like the MCP SDK's ``OAuthAuthorizationServerProvider``: async methods, one store
behind every endpoint, the handlers holding the request rules and the store holding state.
It differs where this project's rules differ (``_server`` says why, handler by handler):

- A credential is never a field of a record the store keeps or returns: the store mints a
  code, nonce or token, keeps only its SHA-256, and hands the value back once (``str`` in a
  field whose ``repr`` is hidden). A presented value is looked up by its hash.
- Spending and checking are one step. ``take_consent`` spends the nonce whatever follows;
  ``exchange_code`` spends the code at its first presentation, ends what a second
  presentation of it produced, and applies ``code_refusal`` (``_rfc6749_token``) inside that
  same step; ``rotate_refresh_token`` applies ``refresh_refusal`` the same way, so a token
  raced from two requests is spent once and a refused presentation spends nothing it should
  not. What a store keeps of spent values is its own: the gateway keeps rotated refresh
  tokens and ends the connection when one comes back (OAuth 2.1 §4.3.1); the venue, like the
  live one, forgets them.
- Consent pages are stored state (``open_consent``, ``take_consent``): the page carries only a
  pending id and a one-time nonce.

Registration and revocation are separate protocols (``ClientRegistry``, ``TokenRevoker``),
because a server without per-client registration or without a revocation endpoint (the
venue) has nothing to implement for them. Verifying an access token is not here: it is each
server's hot path (``ordergate.sandbox.oauth``, ``ordergate.gateway.oauth``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ordergate.oauth._rfc6749 import Refusal

__all__ = [
    "Authorization",
    "AuthorizationStore",
    "Client",
    "ClientRegistry",
    "CodeExchange",
    "ConsentTicket",
    "IssuedTokens",
    "TokenRevoker",
]


@dataclass(frozen=True, slots=True)
class Client:
    """A (public) client. ``redirect_uris`` is what it registered, matched exactly; ``None``
    when it registered none, so that any URI the RFC 8252 rule allows may be used (the
    venue's one shared client, as on the live server)."""

    client_id: str
    client_name: str
    redirect_uris: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Authorization:
    """A validated authorization request: what a consent nonce and then a code are bound to.
    ``redirect_uri`` is the one the request named (on loopback its port may differ from the
    registration's); ``scope`` is the granted one (``_rfc6749_scope``)."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    scope: str
    state: str | None
    resource: str | None
    profile: str | None = None
    """The profile the person chose for the connection (``None`` until they have, and where
    the server offers none)."""
    subject: str | None = None
    """Who signed in on the consent page, where the server's consent hook signs its own users
    in (``SignedIn``: the sandbox venue's named users); ``None`` elsewhere."""


@dataclass(frozen=True, slots=True)
class ConsentTicket:
    """What a consent page's form carries back: the pending request's id and its nonce."""

    pending_id: str
    nonce: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class CodeExchange:
    """An ``authorization_code`` token request, every parameter present (§4.1.3)."""

    code: str = field(repr=False)
    client_id: str
    redirect_uri: str
    code_verifier: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class IssuedTokens:
    """A freshly minted access and refresh token on their way into a token response (§5.1);
    ``expires_in`` is the access token's life in seconds, ``scope`` the granted one."""

    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    expires_in: int
    scope: str


class AuthorizationStore(Protocol):
    """What the handlers ask of a server's state (see the module docstring for the rules)."""

    async def client(self, client_id: str) -> Client | None:
        """The client ``client_id`` names, or ``None``."""
        ...

    async def open_consent(self, authorization: Authorization) -> ConsentTicket:
        """Hold ``authorization`` while its consent page is shown, with a fresh nonce."""
        ...

    async def take_consent(self, pending_id: str, nonce: str) -> Authorization | None:
        """Spend ``nonce``: the authorization it was issued for, or ``None`` when it is not
        that page's, was already spent or has expired."""
        ...

    async def issue_code(self, authorization: Authorization) -> str:
        """A single-use code for the approved ``authorization``."""
        ...

    async def exchange_code(self, exchange: CodeExchange) -> IssuedTokens | Refusal:
        """Spend the code for a token pair, or say why not (``code_refusal``); a code
        presented a second time ends every token issued from it."""
        ...

    async def rotate_refresh_token(
        self, refresh_token: str, *, client_id: str
    ) -> IssuedTokens | Refusal:
        """Spend ``refresh_token`` for a new pair, or say why not (``refresh_refusal``)."""
        ...


class ClientRegistry(Protocol):
    """Per-client registration (RFC 7591): each registration a client of its own."""

    async def register_client(self, *, client_name: str, redirect_uris: tuple[str, ...]) -> Client:
        """Record a new public client under a fresh random id."""
        ...


class TokenRevoker(Protocol):
    """What the revocation endpoint (RFC 7009) asks."""

    async def revoke_token(self, token: str, *, client_id: str) -> None:
        """End what ``token`` opens if it is ``client_id``'s; otherwise nothing."""
        ...

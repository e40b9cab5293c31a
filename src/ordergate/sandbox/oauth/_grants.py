"""``GrantStore``: the venue's authorization state, in memory (``ordergate.oauth``'s store).

Consent nonces, authorization codes, access tokens and refresh tokens are kept only as the
SHA-256 of their value, so nothing in memory (or in a debugger, or a heap dump) can be
replayed. The plain values exist once: in the response that hands them out. The venue has one
client, the shared one, which registered no redirect URI.

Every code opens a *family*; the tokens issued from it, and every token later rotated from
those, belong to it. A code presented twice revokes its whole family (RFC 6749 §4.1.2). A
rotated refresh token is forgotten, as the live venue appears to: presented again it is
merely unknown, and the family lives on.

Looking up an access token is the hot path of every MCP request: one SHA-256 and one dict
lookup, without a lock (a ``dict.get`` is atomic under the GIL). Everything that writes takes
the lock, so admin calls from another thread (``mint``, ``expire_access_tokens``) are safe;
each spend-and-check (``take_consent``, ``exchange_code``, ``rotate_refresh_token``) is one
hold of it. Expired entries are swept while issuing, once per as many issues as entries
survived the previous sweep, so sweeping costs amortised O(1) per issue.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
import threading
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ordergate.core import Clock, Secret
from ordergate.oauth import (
    BAD_CODE,
    BAD_REFRESH,
    Authorization,
    Client,
    CodeExchange,
    ConsentTicket,
    IssuedTokens,
    Refusal,
    code_refusal,
    refresh_refusal,
)

__all__ = ["SANDBOX_SUBJECT", "AccessGrant", "GrantStore", "TokenPair"]

SANDBOX_SUBJECT = "sandbox-user"
_MIN_SWEEP_INTERVAL = 1024


@dataclass(frozen=True)
class AccessGrant:
    """What a valid access token stands for: ``subject`` is the sandbox user it was issued to
    (``SANDBOX_SUBJECT``: the one unnamed user)."""

    client_id: str
    scope: str
    expires_at: datetime
    subject: str


@dataclass(frozen=True)
class TokenPair:
    """A freshly issued access and refresh token; ``expires_in`` is the access token's life in
    seconds. Both values are ``Secret`` so a repr never shows them."""

    access_token: Secret
    refresh_token: Secret
    expires_in: int


@dataclass(frozen=True)
class _Code:
    request: Authorization
    family: int
    expires_at: datetime
    # A redeemed code is remembered until every token it could have produced is dead, so a
    # replay can still revoke them.
    redeemed_until: datetime | None = None


@dataclass(frozen=True)
class _Refresh:
    client_id: str
    scope: str
    expires_at: datetime
    family: int
    subject: str


@dataclass(frozen=True)
class _Consent:
    nonce: bytes
    request: Authorization
    expires_at: datetime


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode()).digest()


def _new_secret() -> str:
    return secrets.token_urlsafe(32)


class GrantStore:
    """Issues, looks up, rotates and revokes the venue's credentials, by their hashes."""

    def __init__(
        self,
        *,
        clock: Clock,
        client_id: str,
        access_token_ttl: timedelta,
        refresh_token_ttl: timedelta,
        code_ttl: timedelta,
        consent_ttl: timedelta,
    ) -> None:
        self._clock = clock
        self._client = Client(client_id=client_id, client_name="", redirect_uris=None)
        self._access_ttl = access_token_ttl
        self._refresh_ttl = refresh_token_ttl
        self._code_ttl = code_ttl
        self._consent_ttl = consent_ttl
        self._lock = threading.Lock()
        self._families = itertools.count(1)
        self._access: dict[bytes, AccessGrant] = {}
        self._access_family: dict[bytes, int] = {}
        self._refresh: dict[bytes, _Refresh] = {}
        self._codes: dict[bytes, _Code] = {}
        self._consents: dict[str, _Consent] = {}
        self._issues_since_sweep = 0
        self._sweep_after = _MIN_SWEEP_INTERVAL

    @property
    def access_token_lifetime_s(self) -> int:
        return self._access_ttl // timedelta(seconds=1)

    # -- the storage protocol (ordergate.oauth.AuthorizationStore) -------------------------

    async def client(self, client_id: str) -> Client | None:
        return self._client if client_id == self._client.client_id else None

    async def open_consent(self, authorization: Authorization) -> ConsentTicket:
        pending_id, nonce = secrets.token_hex(16), _new_secret()
        with self._lock:
            self._consents[pending_id] = _Consent(
                nonce=_digest(nonce),
                request=authorization,
                expires_at=self._clock.now() + self._consent_ttl,
            )
            self._count_issue()
        return ConsentTicket(pending_id=pending_id, nonce=nonce)

    async def take_consent(self, pending_id: str, nonce: str) -> Authorization | None:
        digest = _digest(nonce)
        with self._lock:
            consent = self._consents.get(pending_id)
            if consent is None or not hmac.compare_digest(consent.nonce, digest):
                return None
            del self._consents[pending_id]
        if self._clock.now() >= consent.expires_at:
            return None
        return consent.request

    async def issue_code(self, authorization: Authorization) -> str:
        """A new single-use code for an approved ``authorization``, opening a new family."""
        code = _new_secret()
        with self._lock:
            self._codes[_digest(code)] = _Code(
                request=authorization,
                family=next(self._families),
                expires_at=self._clock.now() + self._code_ttl,
            )
            self._count_issue()
        return code

    async def exchange_code(self, exchange: CodeExchange) -> IssuedTokens | Refusal:
        key = _digest(exchange.code)
        now = self._clock.now()
        with self._lock:
            record = self._codes.get(key)
            if record is None:
                return BAD_CODE
            if record.redeemed_until is not None:
                self._revoke_family(record.family)
                return BAD_CODE
            # Burned at its first presentation, valid or not: a code is worth one try.
            keep_until = now + max(self._access_ttl, self._refresh_ttl)
            self._codes[key] = replace(record, redeemed_until=keep_until)
            bound = record.request
            refusal = code_refusal(
                exchange,
                issued_to=bound.client_id,
                redirect_uri=bound.redirect_uri,
                code_challenge=bound.code_challenge,
                expires_at=record.expires_at,
                now=now,
            )
            if refusal is not None:
                return refusal
            pair = self._issue_locked(
                family=record.family,
                client_id=bound.client_id,
                scope=bound.scope,
                subject=bound.subject or SANDBOX_SUBJECT,
            )
        return _issued(pair, bound.scope)

    async def rotate_refresh_token(
        self, refresh_token: str, *, client_id: str
    ) -> IssuedTokens | Refusal:
        key = _digest(refresh_token)
        now = self._clock.now()
        with self._lock:
            record = self._refresh.get(key)
            if record is None:
                return BAD_REFRESH
            refusal = refresh_refusal(
                client_id, issued_to=record.client_id, expires_at=record.expires_at, now=now
            )
            if refusal is not None:
                return refusal
            del self._refresh[key]
            pair = self._issue_locked(
                family=record.family,
                client_id=record.client_id,
                scope=record.scope,
                subject=record.subject,
            )
        return _issued(pair, record.scope)

    # -- the hot path and the admin knobs ------------------------------------------------

    def verify_access_token(self, token: str) -> AccessGrant | None:
        """The grant behind ``token`` if it is known and unexpired (hot path: no lock)."""
        grant = self._access.get(hashlib.sha256(token.encode()).digest())
        if grant is None or self._clock.now() >= grant.expires_at:
            return None
        return grant

    def mint(self, *, client_id: str, scope: str, subject: str = SANDBOX_SUBJECT) -> TokenPair:
        """An access + refresh pair for ``subject`` in a new family, without a code
        (benchmarks, admin)."""
        with self._lock:
            return self._issue_locked(
                family=next(self._families), client_id=client_id, scope=scope, subject=subject
            )

    def expire_access_tokens(self) -> int:
        """Make every live access token expire now; returns how many were live."""
        now = self._clock.now()
        with self._lock:
            live = [key for key, grant in self._access.items() if now < grant.expires_at]
            for key in live:
                self._access[key] = replace(self._access[key], expires_at=now)
        return len(live)

    def revoke_everything(self) -> int:
        """Revoke every token family (the person disconnected the app at the venue); returns
        how many families had live tokens."""
        with self._lock:
            families = {*self._access_family.values(), *(r.family for r in self._refresh.values())}
            for family in families:
                self._revoke_family(family)
        return len(families)

    # -- internals (call with the lock held) ---------------------------------------------

    def _issue_locked(self, *, family: int, client_id: str, scope: str, subject: str) -> TokenPair:
        now = self._clock.now()
        access, refresh = _new_secret(), _new_secret()
        access_key = _digest(access)
        self._access[access_key] = AccessGrant(
            client_id=client_id,
            scope=scope,
            expires_at=now + self._access_ttl,
            subject=subject,
        )
        self._access_family[access_key] = family
        self._refresh[_digest(refresh)] = _Refresh(
            client_id=client_id,
            scope=scope,
            expires_at=now + self._refresh_ttl,
            family=family,
            subject=subject,
        )
        self._count_issue()
        return TokenPair(
            access_token=Secret(access),
            refresh_token=Secret(refresh),
            expires_in=self.access_token_lifetime_s,
        )

    def _revoke_family(self, family: int) -> None:
        # Rare (a replayed code), so a scan is cheaper than keeping an index up to date.
        for key in [k for k, f in self._access_family.items() if f == family]:
            del self._access[key]
            del self._access_family[key]
        for key in [k for k, r in self._refresh.items() if r.family == family]:
            del self._refresh[key]

    def _count_issue(self) -> None:
        self._issues_since_sweep += 1
        if self._issues_since_sweep >= self._sweep_after:
            self._sweep()

    def _sweep(self) -> None:
        now = self._clock.now()
        self._issues_since_sweep = 0
        for key in [k for k, g in self._access.items() if now >= g.expires_at]:
            del self._access[key]
            del self._access_family[key]
        for key in [k for k, r in self._refresh.items() if now >= r.expires_at]:
            del self._refresh[key]
        for pending in [k for k, c in self._consents.items() if now >= c.expires_at]:
            del self._consents[pending]
        for key in [k for k, c in self._codes.items() if now >= _forget_at(c)]:
            del self._codes[key]
        # The next sweep waits for as many issues as entries survived this one: each sweep
        # costs O(entries), so that keeps the cost per issue constant.
        survivors = len(self._access) + len(self._refresh) + len(self._codes) + len(self._consents)
        self._sweep_after = max(_MIN_SWEEP_INTERVAL, survivors)


def _issued(pair: TokenPair, scope: str) -> IssuedTokens:
    return IssuedTokens(
        access_token=pair.access_token.reveal(),
        refresh_token=pair.refresh_token.reveal(),
        expires_in=pair.expires_in,
        scope=scope,
    )


def _forget_at(code: _Code) -> datetime:
    return code.expires_at if code.redeemed_until is None else code.redeemed_until

"""The in-memory record of what the authorization server has handed out.

Consent nonces, authorization codes, access tokens and refresh tokens are kept only as the
SHA-256 of their value, so nothing in memory (or in a debugger, or a heap dump) can be
replayed. The plain values exist once: in the response that hands them out.

Every code opens a *family*; the tokens issued from it, and every token later rotated from
those, belong to it. A code presented twice revokes its whole family (RFC 6749 §4.1.2).

Looking up an access token is the hot path of every MCP request: one SHA-256 and one dict
lookup, without a lock (a ``dict.get`` is atomic under the GIL). Everything that writes takes
the lock, so admin calls from another thread (``mint_tokens``, ``expire_access_tokens``) are
safe. Expired entries are swept while issuing, once per as many issues as entries survived the
previous sweep, so sweeping costs amortised O(1) per issue.
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
import threading
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ordergate.core import Clock, Secret

__all__ = [
    "SANDBOX_SUBJECT",
    "AccessGrant",
    "AuthorizationRequest",
    "CodeGrant",
    "GrantStore",
    "TokenPair",
]

SANDBOX_SUBJECT = "sandbox-user"
_MIN_SWEEP_INTERVAL = 1024


@dataclass(frozen=True)
class AccessGrant:
    """What a valid access token stands for."""

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
class AuthorizationRequest:
    """A validated authorization request: what a consent nonce and a code are bound to."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    scope: str
    resource: str | None
    state: str | None


@dataclass(frozen=True)
class CodeGrant:
    """An authorization code at its first (and only honoured) presentation."""

    request: AuthorizationRequest
    family: int


@dataclass(frozen=True)
class _Code:
    request: AuthorizationRequest
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


@dataclass(frozen=True)
class _Consent:
    request: AuthorizationRequest
    expires_at: datetime


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode()).digest()


def _new_secret() -> str:
    return secrets.token_urlsafe(32)


class GrantStore:
    """Issues, looks up, rotates and revokes the server's credentials, by their hashes."""

    def __init__(
        self,
        *,
        clock: Clock,
        access_token_ttl: timedelta,
        refresh_token_ttl: timedelta,
        code_ttl: timedelta,
        consent_ttl: timedelta,
    ) -> None:
        self._clock = clock
        self._access_ttl = access_token_ttl
        self._refresh_ttl = refresh_token_ttl
        self._code_ttl = code_ttl
        self._consent_ttl = consent_ttl
        self._lock = threading.Lock()
        self._families = itertools.count(1)
        self._revoked_families: set[int] = set()
        self._access: dict[bytes, AccessGrant] = {}
        self._access_family: dict[bytes, int] = {}
        self._refresh: dict[bytes, _Refresh] = {}
        self._codes: dict[bytes, _Code] = {}
        self._consents: dict[bytes, _Consent] = {}
        self._issues_since_sweep = 0
        self._sweep_after = _MIN_SWEEP_INTERVAL

    @property
    def access_token_lifetime_s(self) -> int:
        return self._access_ttl // timedelta(seconds=1)

    # -- consent nonces ------------------------------------------------------------------

    def open_consent(self, request: AuthorizationRequest) -> Secret:
        """A single-use nonce for the consent form that shows ``request``."""
        nonce = _new_secret()
        with self._lock:
            self._consents[_digest(nonce)] = _Consent(
                request=request, expires_at=self._clock.now() + self._consent_ttl
            )
            self._count_issue()
        return Secret(nonce)

    def take_consent(self, nonce: str) -> AuthorizationRequest | None:
        """The request ``nonce`` was issued for, spending it; ``None`` if unknown, spent or old."""
        with self._lock:
            consent = self._consents.pop(_digest(nonce), None)
        if consent is None or self._clock.now() >= consent.expires_at:
            return None
        return consent.request

    # -- authorization codes -------------------------------------------------------------

    def issue_code(self, request: AuthorizationRequest) -> Secret:
        """A new single-use code for an approved ``request``, opening a new token family."""
        code = _new_secret()
        with self._lock:
            self._codes[_digest(code)] = _Code(
                request=request,
                family=next(self._families),
                expires_at=self._clock.now() + self._code_ttl,
            )
            self._count_issue()
        return Secret(code)

    def redeem_code(self, code: str) -> CodeGrant | None:
        """Spend ``code``: its grant on the first presentation within its lifetime, else ``None``.

        A second presentation revokes every token issued from the code.
        """
        key = _digest(code)
        now = self._clock.now()
        with self._lock:
            record = self._codes.get(key)
            if record is None:
                return None
            if record.redeemed_until is not None:
                self._revoke_family(record.family)
                return None
            # Burned at its first presentation, valid or not: a code is worth one try.
            keep_until = now + max(self._access_ttl, self._refresh_ttl)
            self._codes[key] = replace(record, redeemed_until=keep_until)
        if now >= record.expires_at:
            return None
        return CodeGrant(request=record.request, family=record.family)

    # -- tokens --------------------------------------------------------------------------

    def new_family(self) -> int:
        with self._lock:
            return next(self._families)

    def issue_tokens(self, *, family: int, client_id: str, scope: str) -> TokenPair | None:
        """A new access + refresh pair in ``family``; ``None`` if the family has been revoked."""
        with self._lock:
            if family in self._revoked_families:
                return None
            return self._issue_locked(family=family, client_id=client_id, scope=scope)

    def rotate_refresh_token(self, refresh_token: str, *, client_id: str) -> TokenPair | None:
        """Spend ``refresh_token`` for a new pair; ``None`` if unknown, spent, expired or
        issued to another client. The spent token is refused from then on."""
        now = self._clock.now()
        with self._lock:
            record = self._refresh.pop(_digest(refresh_token), None)
            if record is None or now >= record.expires_at or record.client_id != client_id:
                return None
            return self._issue_locked(
                family=record.family, client_id=record.client_id, scope=record.scope
            )

    def verify_access_token(self, token: str) -> AccessGrant | None:
        """The grant behind ``token`` if it is known and unexpired (hot path: no lock)."""
        grant = self._access.get(hashlib.sha256(token.encode()).digest())
        if grant is None or self._clock.now() >= grant.expires_at:
            return None
        return grant

    def expire_access_tokens(self) -> int:
        """Make every live access token expire now; returns how many were live."""
        now = self._clock.now()
        with self._lock:
            live = [key for key, grant in self._access.items() if now < grant.expires_at]
            for key in live:
                self._access[key] = replace(self._access[key], expires_at=now)
        return len(live)

    # -- internals (call with the lock held) ---------------------------------------------

    def _issue_locked(self, *, family: int, client_id: str, scope: str) -> TokenPair:
        now = self._clock.now()
        access, refresh = _new_secret(), _new_secret()
        access_key = _digest(access)
        self._access[access_key] = AccessGrant(
            client_id=client_id,
            scope=scope,
            expires_at=now + self._access_ttl,
            subject=SANDBOX_SUBJECT,
        )
        self._access_family[access_key] = family
        self._refresh[_digest(refresh)] = _Refresh(
            client_id=client_id, scope=scope, expires_at=now + self._refresh_ttl, family=family
        )
        self._count_issue()
        return TokenPair(
            access_token=Secret(access),
            refresh_token=Secret(refresh),
            expires_in=self.access_token_lifetime_s,
        )

    def revoke_everything(self) -> int:
        """Revoke every token family (the person disconnected the app at the venue); returns
        how many families had live tokens."""
        with self._lock:
            families = {*self._access_family.values(), *(r.family for r in self._refresh.values())}
            for family in families:
                self._revoke_family(family)
        return len(families)

    def _revoke_family(self, family: int) -> None:
        # Rare (a replayed code), so a scan is cheaper than keeping an index up to date.
        self._revoked_families.add(family)
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
        for key in [k for k, c in self._consents.items() if now >= c.expires_at]:
            del self._consents[key]
        for key in [k for k, c in self._codes.items() if now >= _forget_at(c)]:
            del self._codes[key]
        # The next sweep waits for as many issues as entries survived this one: each sweep
        # costs O(entries), so that keeps the cost per issue constant.
        survivors = len(self._access) + len(self._refresh) + len(self._codes) + len(self._consents)
        self._sweep_after = max(_MIN_SWEEP_INTERVAL, survivors)


def _forget_at(code: _Code) -> datetime:
    return code.expires_at if code.redeemed_until is None else code.redeemed_until

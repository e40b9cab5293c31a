"""``CallerVerifier``: is this caller token one the host minted, and whom does it name?

``check`` runs, in this order, stopping at the first failure:

1. length guard: more than ``MAX_TOKEN_LENGTH`` characters is refused before any other work;
2. the cache (below);
3. shape: ASCII, exactly one ".", two base64url parts, a signature of HMAC-SHA256 length;
4. signature: HMAC-SHA256 of the payload part recomputed under the key and compared with
   ``hmac.compare_digest`` against the given part (equal-length bytes, constant time);
5. payload: decoded and read strictly (``_claims``);
6. expiry, against the injected clock: expired once ``now >= expires_at``.

A refusal carries a stable ``RefusalReason`` for metrics; a tampered token and one signed
under another key look the same (``bad_signature``) and should: the verifier cannot tell.
``verify`` is ``check`` with every refusal as ``None``.

The cache maps the SHA-256 of a token that passed steps 3-5 to its claims, at most
``cache_size`` entries, least recently used evicted first (``cache_size=0`` turns it off).
The token itself is never kept. Every hit re-checks expiry, and an expired entry is dropped.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import OrderedDict
from dataclasses import dataclass
from enum import StrEnum

from ordergate.callers._claims import (
    MAX_TOKEN_LENGTH,
    CallerClaims,
    b64url_decode,
    b64url_encode,
    parse_payload,
    split_token,
)
from ordergate.callers._key import CallerKey
from ordergate.core import Clock

__all__ = ["DEFAULT_CACHE_SIZE", "CallerRefusal", "CallerVerifier", "RefusalReason"]

DEFAULT_CACHE_SIZE = 4096


class RefusalReason(StrEnum):
    OVERSIZE = "oversize"
    MALFORMED = "malformed"
    BAD_SIGNATURE = "bad_signature"
    BAD_PAYLOAD = "bad_payload"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class CallerRefusal:
    """Why a caller token was refused."""

    reason: RefusalReason


_REFUSED = {reason: CallerRefusal(reason) for reason in RefusalReason}


class CallerVerifier:
    """Checks caller tokens signed with ``key``; thread-safe."""

    def __init__(
        self, key: CallerKey, clock: Clock, *, cache_size: int = DEFAULT_CACHE_SIZE
    ) -> None:
        if cache_size < 0:
            raise ValueError("cache_size must be 0 (no cache) or more")
        self._key = key
        self._clock = clock
        self._cache_size = cache_size
        self._cache: OrderedDict[bytes, CallerClaims] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"CallerVerifier({self._key!r}, cache_size={self._cache_size})"

    def verify(self, token: str) -> CallerClaims | None:
        """The claims of a valid, unexpired token; ``None`` for anything else."""
        result = self.check(token)
        return result if isinstance(result, CallerClaims) else None

    def check(self, token: str) -> CallerClaims | CallerRefusal:
        """The claims of a valid, unexpired token, else the refusal and its reason."""
        if len(token) > MAX_TOKEN_LENGTH:
            return _REFUSED[RefusalReason.OVERSIZE]
        if not token.isascii():
            return _REFUSED[RefusalReason.MALFORMED]
        now = self._clock.now()
        digest = b""
        if self._cache_size:
            digest = hashlib.sha256(token.encode("ascii")).digest()
            with self._lock:
                cached = self._cache.get(digest)
                if cached is not None:
                    if now >= cached.expires_at:
                        del self._cache[digest]
                        return _REFUSED[RefusalReason.EXPIRED]
                    self._cache.move_to_end(digest)
                    return cached
        result = self._check_signed(token)
        if isinstance(result, CallerRefusal):
            return result
        if now >= result.expires_at:
            return _REFUSED[RefusalReason.EXPIRED]
        if self._cache_size:
            with self._lock:
                self._cache[digest] = result
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return result

    def _check_signed(self, token: str) -> CallerClaims | CallerRefusal:
        parts = split_token(token)
        if parts is None:
            return _REFUSED[RefusalReason.MALFORMED]
        payload, signature = parts
        expected = b64url_encode(self._key.sign(payload.encode("ascii"))).encode("ascii")
        # Both sides are 43 ASCII bytes (split_token checked the given one's length).
        if not hmac.compare_digest(expected, signature.encode("ascii")):
            return _REFUSED[RefusalReason.BAD_SIGNATURE]
        raw = b64url_decode(payload)
        claims = None if raw is None else parse_payload(raw)
        if claims is None:
            return _REFUSED[RefusalReason.BAD_PAYLOAD]
        return claims

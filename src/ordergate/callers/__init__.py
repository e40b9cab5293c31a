"""Caller-bound capability tokens (issue 7 §2): short-lived, HMAC-signed, naming one caller.

An agent that cannot run an OAuth flow (headless, in a container) is given a token minted on
the host by ``ordergate token mint``. The token names exactly one caller and profile (and,
where one gateway holds several people's sessions, the connection) and expires within 24
hours; the key that signs it never leaves the host.

- ``CallerKey``: the signing key, from ``ORDERGATE_CALLER_TOKEN_KEY`` or derived from
  ``ORDERGATE_MASTER_SECRET``;
- ``mint``: a fresh token (a ``Secret``);
- ``CallerVerifier``: constant-time, length-guarded, cached verification against an injected
  clock, with a reason code for every refusal;
- ``looks_like_caller_token``: a cheap shape test telling these from opaque OAuth tokens.

Errors: ``ConfigError`` (naming the variable or field) for a missing or short key and for a
claim ``mint`` cannot sign. Verification never raises on a bad token: it refuses it.
"""

from ordergate.callers._claims import (
    CALLER_PATTERN,
    MAX_TOKEN_LENGTH,
    MINT_PATTERN,
    PROFILE_PATTERN,
    CallerClaims,
    looks_like_caller_token,
)
from ordergate.callers._key import ENV_CALLER_TOKEN_KEY, ENV_MASTER_SECRET, CallerKey, KeySource
from ordergate.callers._mint import MAX_TTL, MIN_TTL, mint
from ordergate.callers._verify import (
    DEFAULT_CACHE_SIZE,
    CallerRefusal,
    CallerVerifier,
    RefusalReason,
)

__all__ = [
    "CALLER_PATTERN",
    "DEFAULT_CACHE_SIZE",
    "ENV_CALLER_TOKEN_KEY",
    "ENV_MASTER_SECRET",
    "MAX_TOKEN_LENGTH",
    "MAX_TTL",
    "MINT_PATTERN",
    "MIN_TTL",
    "PROFILE_PATTERN",
    "CallerClaims",
    "CallerKey",
    "CallerRefusal",
    "CallerVerifier",
    "KeySource",
    "RefusalReason",
    "looks_like_caller_token",
    "mint",
]

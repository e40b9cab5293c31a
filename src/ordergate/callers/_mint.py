"""``mint``: a fresh caller token for one caller and profile, valid for ``ttl``.

The expiry is whole seconds, rounded down from ``now + ttl``; ``ttl`` is at least one second
and at most ``MAX_TTL`` (24 hours), so a stolen token is worth little for long. Minting checks
every claim against the rules the verifier reads them by: a token ``mint`` returns always
verifies under the same key until it expires. Each token gets a fresh random mint id (96 bits),
so two tokens minted for one name are two callers on the record and each can be revoked alone.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from ordergate.callers._claims import (
    CALLER_PATTERN,
    PROFILE_PATTERN,
    CallerClaims,
    b64url_encode,
    encode_payload,
)
from ordergate.callers._key import CallerKey
from ordergate.core import ConfigError, Secret, utc

__all__ = ["MAX_TTL", "MIN_TTL", "mint"]

MIN_TTL = timedelta(seconds=1)
MAX_TTL = timedelta(hours=24)


def mint(
    key: CallerKey,
    *,
    caller: str,
    profile: str,
    ttl: timedelta,
    now: datetime,
    connection: str | None = None,
) -> Secret:
    """A token naming ``caller``, ``profile`` and (optionally) ``connection``, expiring
    ``ttl`` after ``now``. Raises ``ConfigError`` naming the field that breaks a rule, and
    ``ValueError`` for a naive ``now``."""
    if CALLER_PATTERN.fullmatch(caller) is None:
        raise ConfigError("caller", "must be 1-64 characters of A-Z a-z 0-9 . _ -")
    if PROFILE_PATTERN.fullmatch(profile) is None:
        raise ConfigError("profile", "must be 1-64 characters of a-z 0-9 _ -")
    if connection is not None and CALLER_PATTERN.fullmatch(connection) is None:
        raise ConfigError("connection", "must be 1-64 characters of A-Z a-z 0-9 . _ -")
    if not MIN_TTL <= ttl <= MAX_TTL:
        raise ConfigError("ttl", "must be at least 1 second and at most 24 hours")
    expires = utc(now) + ttl
    expires -= timedelta(microseconds=expires.microsecond)
    mint_id = secrets.token_urlsafe(12)
    payload = encode_payload(CallerClaims(caller, profile, mint_id, expires, connection))
    signature = b64url_encode(key.sign(payload.encode("ascii")))
    return Secret(f"{payload}.{signature}")

"""The gateway's credential values: how they are minted and how they are kept.

Every authorization code, access token, refresh token and consent nonce is 256 bits from the
operating system's CSPRNG (``secrets.token_urlsafe(32)``). The value itself exists once, in
the response that hands it to its owner; the database holds only its SHA-256 (hex), so
nothing read from it (a backup, a leaked file, a debugger) can be presented back.

Minted values are plain ``str`` on purpose, not ``ordergate.core.Secret``: wrapping registers
a value with the log redactor for the life of the process, and a gateway mints several per
client per hour. They stay local to the request that mints them and are never logged.
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["MAX_VALUE_LENGTH", "mint", "new_id", "sha256_hex"]

# A minted value is 43 characters; anything far longer was not minted here and is not hashed.
MAX_VALUE_LENGTH = 512


def mint() -> str:
    """A fresh 256-bit credential value (URL-safe text)."""
    return secrets.token_urlsafe(32)


def new_id() -> str:
    """A fresh 128-bit identifier (client, connection, pending authorization): not a secret."""
    return secrets.token_hex(16)


def sha256_hex(value: str) -> str:
    """What the database keeps of ``value``."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()

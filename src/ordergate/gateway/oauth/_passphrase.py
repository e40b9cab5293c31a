"""The owner's passphrase on the consent page (a gateway bound beyond loopback requires one).

Only the SHA-256 of the configured passphrase is kept; a submitted one is hashed and compared
in constant time, so neither the comparison's timing nor a memory dump of this object gives
the passphrase away.
"""

from __future__ import annotations

import hashlib
import hmac

from ordergate.core import ConfigError, Secret

__all__ = ["OwnerPassphrase"]


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class OwnerPassphrase:
    """Checks a submitted passphrase against the configured one.

    Raises ``ConfigError`` for an empty passphrase.
    """

    def __init__(self, passphrase: Secret) -> None:
        if not passphrase:
            raise ConfigError("require_passphrase", "must not be empty")
        self._digest = _digest(passphrase.reveal())

    def __repr__(self) -> str:
        return "OwnerPassphrase(**********)"

    def matches(self, submitted: str | None) -> bool:
        """Whether ``submitted`` is the passphrase (``None``, i.e. nothing typed, never is)."""
        same = hmac.compare_digest(_digest(submitted or ""), self._digest)
        return same and submitted is not None

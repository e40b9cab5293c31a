"""The owner's passphrase, kept only as a memory-hard hash (scrypt, RFC 7914).

``hash_passphrase`` draws a 16-byte salt and derives 32 bytes with scrypt at N = 2^15,
r = 8, p = 1 (32 MiB of memory and some tens of milliseconds per try, so a stolen enrolment
file is slow to attack offline, and the gateway's lockout bounds online tries).
``passphrase_matches`` derives again with the stored parameters and compares in constant
time. scrypt is hashlib's (OpenSSL's): no hand-written key derivation.

A passphrase is 12 to 1,024 characters and must not look like an authenticator code (six
digits), so the owner code field can tell the two apart.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from ordergate.core import ConfigError

__all__ = [
    "MAX_PASSPHRASE",
    "MIN_PASSPHRASE",
    "PassphraseHash",
    "check_passphrase_rules",
    "hash_passphrase",
    "passphrase_matches",
]

MIN_PASSPHRASE = 12
MAX_PASSPHRASE = 1024
_N, _R, _P = 2**15, 8, 1
_LENGTH = 32
_MAXMEM = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class PassphraseHash:
    """What is kept of a passphrase: the scrypt parameters, the salt and the derived key."""

    n: int
    r: int
    p: int
    salt: bytes
    key: bytes

    def __repr__(self) -> str:
        return f"PassphraseHash(scrypt n={self.n} r={self.r} p={self.p})"

    def to_json(self) -> dict[str, Any]:
        return {
            "scheme": "scrypt",
            "n": self.n,
            "r": self.r,
            "p": self.p,
            "salt": base64.b64encode(self.salt).decode(),
            "key": base64.b64encode(self.key).decode(),
        }

    @classmethod
    def from_json(cls, value: Any) -> PassphraseHash:
        """Raises ``ValueError`` for anything but a well-formed scrypt record."""
        if not isinstance(value, dict) or value.get("scheme") != "scrypt":
            raise ValueError("not a scrypt passphrase record")
        n, r, p = value.get("n"), value.get("r"), value.get("p")
        if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in (n, r, p)):
            raise ValueError("scrypt parameters must be positive integers")
        assert isinstance(n, int) and isinstance(r, int) and isinstance(p, int)
        salt = base64.b64decode(str(value.get("salt", "")), validate=True)
        key = base64.b64decode(str(value.get("key", "")), validate=True)
        if len(salt) < 16 or len(key) != _LENGTH:
            raise ValueError("scrypt salt or key has the wrong length")
        return cls(n=n, r=r, p=p, salt=salt, key=key)


def check_passphrase_rules(passphrase: str) -> None:
    """Raise ``ConfigError`` (key ``passphrase``) for a passphrase that may not be enrolled."""
    if len(passphrase) < MIN_PASSPHRASE:
        raise ConfigError("passphrase", f"must be at least {MIN_PASSPHRASE} characters")
    if len(passphrase) > MAX_PASSPHRASE:
        raise ConfigError("passphrase", f"must be at most {MAX_PASSPHRASE} characters")
    if not passphrase.isprintable():
        raise ConfigError("passphrase", "must be printable text on one line")


def _derive(passphrase: str, *, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        passphrase.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=_LENGTH
    )


def hash_passphrase(passphrase: str) -> PassphraseHash:
    """The hash to keep for ``passphrase``. Raises ``ConfigError`` when it breaks the rules."""
    check_passphrase_rules(passphrase)
    salt = secrets.token_bytes(16)
    return PassphraseHash(
        n=_N, r=_R, p=_P, salt=salt, key=_derive(passphrase, salt=salt, n=_N, r=_R, p=_P)
    )


def passphrase_matches(submitted: str, stored: PassphraseHash) -> bool:
    """Whether ``submitted`` is the passphrase ``stored`` was made from (constant time)."""
    if not MIN_PASSPHRASE <= len(submitted) <= MAX_PASSPHRASE:
        return False
    derived = _derive(submitted, salt=stored.salt, n=stored.n, r=stored.r, p=stored.p)
    return hmac.compare_digest(derived, stored.key)

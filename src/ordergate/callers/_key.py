"""``CallerKey``: the host-only HMAC-SHA256 key that signs and checks caller tokens.

Where the key comes from, first match wins:

1. ``ORDERGATE_CALLER_TOKEN_KEY``: used as the key itself; at least 32 characters;
2. ``ORDERGATE_MASTER_SECRET``: HKDF-SHA256 with this module's own salt and info string, so the
   key is unrelated to any other key derived from the same secret (the upstream sealing key);
3. neither: ``ConfigError`` naming the variable to set.

An empty variable counts as unset. Rules: the key lives on the host only. It is never in a
``repr``, an error message or a log record, and nothing here hands it out: callers get
``sign``, never the bytes.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from enum import StrEnum

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ordergate.core import MIN_KEY_SECRET_LENGTH, ConfigError, Secret

__all__ = ["ENV_CALLER_TOKEN_KEY", "ENV_MASTER_SECRET", "CallerKey", "KeySource"]

ENV_CALLER_TOKEN_KEY = "ORDERGATE_CALLER_TOKEN_KEY"
ENV_MASTER_SECRET = "ORDERGATE_MASTER_SECRET"
SALT = b"ordergate/caller-token/v1"
INFO = b"ordergate caller tokens"


class KeySource(StrEnum):
    """Which variable the key came from (the value is the variable's name: safe to show)."""

    CALLER_TOKEN_KEY = ENV_CALLER_TOKEN_KEY
    MASTER_SECRET = ENV_MASTER_SECRET


def _too_short(variable: str) -> ConfigError:
    return ConfigError(variable, f"must be at least {MIN_KEY_SECRET_LENGTH} characters")


class CallerKey:
    """The caller-token signing key. Raises ``ConfigError`` (naming the variable) when the
    material is too short."""

    __slots__ = ("_material", "_source")

    def __init__(self, material: bytes, *, source: KeySource) -> None:
        if len(material) < MIN_KEY_SECRET_LENGTH:
            raise _too_short(source.value)
        self._material = material
        self._source = source

    @classmethod
    def from_secret(cls, key: Secret) -> CallerKey:
        """The value of ``ORDERGATE_CALLER_TOKEN_KEY``, used as the HMAC key itself."""
        value = key.reveal()
        if len(value) < MIN_KEY_SECRET_LENGTH:
            raise _too_short(ENV_CALLER_TOKEN_KEY)
        return cls(value.encode("utf-8"), source=KeySource.CALLER_TOKEN_KEY)

    @classmethod
    def derive(cls, master: Secret) -> CallerKey:
        """HKDF-SHA256 of the master secret under the caller-token salt and info."""
        secret = master.reveal().encode("utf-8")
        if len(secret) < MIN_KEY_SECRET_LENGTH:
            # Measured in bytes, as the sealing key measures it, so both accept the same secrets.
            raise _too_short(ENV_MASTER_SECRET)
        material = HKDF(algorithm=hashes.SHA256(), length=32, salt=SALT, info=INFO).derive(secret)
        return cls(material, source=KeySource.MASTER_SECRET)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> CallerKey:
        """The key from ``environ``: the dedicated variable, else derived from the master
        secret. Raises ``ConfigError`` naming the variable to set when neither is set."""
        dedicated = environ.get(ENV_CALLER_TOKEN_KEY, "")
        if dedicated:
            return cls.from_secret(Secret(dedicated))
        master = environ.get(ENV_MASTER_SECRET, "")
        if master:
            return cls.derive(Secret(master))
        raise ConfigError(
            ENV_CALLER_TOKEN_KEY,
            f"not set: set {ENV_CALLER_TOKEN_KEY} (at least {MIN_KEY_SECRET_LENGTH} characters) "
            f"or {ENV_MASTER_SECRET} to sign caller tokens",
        )

    @property
    def source(self) -> KeySource:
        return self._source

    def sign(self, message: bytes) -> bytes:
        """HMAC-SHA256 of ``message`` under this key (32 bytes)."""
        return hmac.digest(self._material, message, "sha256")

    def __repr__(self) -> str:
        return f"CallerKey(source={self._source.value}, key=<hidden>)"

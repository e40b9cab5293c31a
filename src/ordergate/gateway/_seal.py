"""Sealing the upstream's tokens at rest: AES-256-GCM under a key derived from the master secret.

The key is HKDF-SHA256 over ``ORDERGATE_MASTER_SECRET`` with this module's own salt and info
string, so it is unrelated to any other key derived from the same secret. Each seal draws a
fresh 96-bit nonce; the associated data binds a sealed blob to what it belongs to (the
connection id), so a blob copied onto another connection does not open. The output is text:
``v1.`` + base64url(nonce ‖ ciphertext ‖ tag).

A wrong key, wrong associated data or any change to the blob raises ``SealError`` with no
detail: nothing about the contents or the key leaks through an error.
"""

from __future__ import annotations

import base64
import binascii
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ordergate.core import MIN_KEY_SECRET_LENGTH, OrdergateError, Secret

__all__ = ["MIN_SECRET_LENGTH", "SealError", "Sealer"]

SALT = b"ordergate/upstream-seal/v1"
INFO = b"ordergate upstream tokens"
PREFIX = "v1."
MIN_SECRET_LENGTH = MIN_KEY_SECRET_LENGTH
_NONCE = 12


class SealError(OrdergateError):
    """A sealed value could not be opened (or the master secret is unusable)."""

    code = "seal"


class Sealer:
    def __init__(self, master: Secret) -> None:
        secret = master.reveal().encode("utf-8")
        if len(secret) < MIN_SECRET_LENGTH:
            raise SealError(
                f"ORDERGATE_MASTER_SECRET must be at least {MIN_SECRET_LENGTH} characters"
            )
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=SALT, info=INFO).derive(secret)
        self._aead = AESGCM(key)

    def __repr__(self) -> str:
        return "Sealer(<key>)"

    def seal(self, plaintext: bytes, *, aad: bytes) -> str:
        nonce = os.urandom(_NONCE)
        sealed = nonce + self._aead.encrypt(nonce, plaintext, aad)
        return PREFIX + base64.urlsafe_b64encode(sealed).decode("ascii")

    def unseal(self, text: str, *, aad: bytes) -> bytes:
        if not text.startswith(PREFIX):
            raise SealError("not a sealed value")
        try:
            raw = base64.urlsafe_b64decode(text[len(PREFIX) :].encode("ascii"))
        except (binascii.Error, UnicodeEncodeError, ValueError):
            raise SealError("not a sealed value") from None
        if len(raw) < _NONCE + 16:
            raise SealError("not a sealed value")
        try:
            return self._aead.decrypt(raw[:_NONCE], raw[_NONCE:], aad)
        except InvalidTag:
            raise SealError("the sealed value does not open with this key") from None

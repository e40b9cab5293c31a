"""Envelope encryption of a connection's upstream session: its own data key, wrapped.

``seal_session`` draws a fresh 256-bit data key (or reuses the connection's own), encrypts
the session with AES-256-GCM under it (a fresh 96-bit nonce; the connection id as associated
data, so a blob copied onto another row does not open) and has the key provider wrap the data
key. A row keeps three things: ``upstream_sealed`` (``v2.`` + base64url(nonce ‖ ciphertext ‖
tag)), ``data_key_wrapped`` (base64url of the provider's blob) and ``kek_id``. None of them
opens without the provider that holds that KEK; erasing the wrapped data key erases the
session (crypto-shredding).
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ordergate.gateway._seal import SealError
from ordergate.gateway.keys._provider import KeyProvider

__all__ = [
    "ENVELOPE_PREFIX",
    "Envelope",
    "open_envelope",
    "rewrapped",
    "seal_envelope",
    "unwrapped_data_key",
]

ENVELOPE_PREFIX = "v2."
_NONCE = 12
_DATA_KEY = 32


@dataclass(frozen=True, slots=True)
class Envelope:
    """What a row stores for a sealed session; ``data_key`` is kept in memory only, for a
    reseal on refresh, and is never shown."""

    sealed: str
    data_key_wrapped: str
    kek_id: str
    data_key: bytes

    def __repr__(self) -> str:
        return f"Envelope(kek_id={self.kek_id!r}, <sealed>)"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise SealError("not a sealed value") from None


def seal_envelope(
    keys: KeyProvider,
    plaintext: bytes,
    *,
    aad: bytes,
    data_key: bytes | None = None,
    wrapped: tuple[str, str] | None = None,
) -> Envelope:
    """``plaintext`` sealed under a data key: a fresh one wrapped now, or ``data_key`` with
    its stored ``wrapped`` (kek id, blob) as it is."""
    if data_key is None or wrapped is None:
        data_key = os.urandom(_DATA_KEY)
        kek_id, blob = keys.wrap(data_key)
        wrapped = (kek_id, _b64(blob))
    nonce = os.urandom(_NONCE)
    sealed = ENVELOPE_PREFIX + _b64(nonce + AESGCM(data_key).encrypt(nonce, plaintext, aad))
    return Envelope(
        sealed=sealed, data_key_wrapped=wrapped[1], kek_id=wrapped[0], data_key=data_key
    )


def open_envelope(
    keys: KeyProvider, sealed: str, *, data_key_wrapped: str, kek_id: str, aad: bytes
) -> tuple[bytes, bytes]:
    """The plaintext and the data key. ``SealError`` when the blob does not open;
    ``KeyProviderError`` when its data key does not unwrap."""
    if not sealed.startswith(ENVELOPE_PREFIX):
        raise SealError("not a sealed value")
    raw = _unb64(sealed[len(ENVELOPE_PREFIX) :])
    if len(raw) < _NONCE + 16:
        raise SealError("not a sealed value")
    data_key = keys.unwrap(kek_id, _unb64(data_key_wrapped))
    try:
        return AESGCM(data_key).decrypt(raw[:_NONCE], raw[_NONCE:], aad), data_key
    except (InvalidTag, ValueError):
        raise SealError("the sealed value does not open with this key") from None


def unwrapped_data_key(keys: KeyProvider, *, data_key_wrapped: str, kek_id: str) -> bytes:
    """A row's data key, unwrapped by the provider (to seal something more under it, in
    memory only). ``KeyProviderError`` when it does not unwrap; ``SealError`` for a blob that
    is not one."""
    return keys.unwrap(kek_id, _unb64(data_key_wrapped))


def rewrapped(keys: KeyProvider, *, data_key_wrapped: str, kek_id: str) -> tuple[str, str]:
    """The stored data key moved under the provider's current KEK: (kek id, blob text)."""
    new_id, blob = keys.rewrap(kek_id, _unb64(data_key_wrapped))
    return new_id, _b64(blob)

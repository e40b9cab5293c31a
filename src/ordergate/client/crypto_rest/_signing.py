"""Request signing of Robinhood's Crypto Trading REST API (Ed25519).

Every request carries ``x-api-key``, ``x-timestamp`` (Unix seconds; Robinhood refuses one
older than ``VALID_S``) and ``x-signature``: the base64 Ed25519 signature over the UTF-8 text
``api_key + timestamp + path + method + body``, the path with its query string, the method
in capitals and the body exactly as sent (empty for a GET). ``signed_message`` is that text,
the one definition of it: the client signs it, and a venue that checks signatures rebuilds
it with the same function.

The key is an ``ApiKey``: the API key and the base64 private key are ``Secret`` (masked in
every repr and log line); the Ed25519 key object built from the seed is never shown either.
"""

from __future__ import annotations

import base64
import binascii

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ordergate.core import Secret

__all__ = [
    "VALID_S",
    "ApiKey",
    "KeyFormatError",
    "public_key_text",
    "signature_problem",
    "signed_message",
]

VALID_S = 30
"""How long a signed request stays valid (seconds after its ``x-timestamp``)."""


class KeyFormatError(ValueError):
    """A private key that is not the base64 of a 32-byte Ed25519 seed (the value never shown)."""


def signed_message(api_key: str, timestamp: int | str, path: str, method: str, body: str) -> bytes:
    """The text Robinhood signs: ``api_key + timestamp + path + method + body``, UTF-8."""
    return f"{api_key}{timestamp}{path}{method.upper()}{body}".encode()


def _seed(private_key: str) -> bytes:
    try:
        seed = base64.b64decode(private_key.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise KeyFormatError("the private key is not base64") from None
    if len(seed) != 32:
        raise KeyFormatError(f"the private key is {len(seed)} bytes; an Ed25519 seed is 32")
    return seed


class ApiKey:
    """An API key and its Ed25519 private key (base64 of the 32-byte seed).

    Raises ``KeyFormatError`` (a ``ValueError``) when the private key is not such a seed.
    """

    __slots__ = ("_signer", "api_key", "private_key")

    def __init__(self, api_key: Secret, private_key: Secret) -> None:
        if not api_key.reveal().strip():
            raise KeyFormatError("the API key is empty")
        self.api_key = api_key
        self.private_key = private_key
        self._signer = Ed25519PrivateKey.from_private_bytes(_seed(private_key.reveal()))

    def __repr__(self) -> str:
        return f"ApiKey(api_key={self.api_key!r}, private_key={self.private_key!r})"

    @property
    def public_key(self) -> str:
        """The base64 public key: what is registered with Robinhood (not a secret)."""
        return public_key_text(self._signer.public_key())

    def sign(self, timestamp: int | str, path: str, method: str, body: str) -> str:
        """The base64 signature of one request."""
        message = signed_message(self.api_key.reveal(), timestamp, path, method, body)
        return base64.b64encode(self._signer.sign(message)).decode("ascii")

    def headers(self, timestamp: int, path: str, method: str, body: str) -> dict[str, str]:
        """The three headers of one signed request."""
        return {
            "x-api-key": self.api_key.reveal(),
            "x-timestamp": str(timestamp),
            "x-signature": self.sign(timestamp, path, method, body),
        }


def public_key_text(key: Ed25519PublicKey) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return base64.b64encode(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode("ascii")


def signature_problem(
    public_key: str,
    signature: str,
    *,
    api_key: str,
    timestamp: str,
    path: str,
    method: str,
    body: str,
    now_s: float,
) -> str | None:
    """Why a signed request must be refused, as a fixed sentence (``None``: it holds).

    ``timestamp`` must be whole Unix seconds at most ``VALID_S`` from ``now_s`` (either way),
    and ``signature`` must verify under ``public_key`` (base64, raw 32 bytes) over
    ``signed_message``. No sentence ever holds a key or a signature.
    """
    if not timestamp.isdigit():
        return "x-timestamp is not Unix seconds"
    if abs(now_s - int(timestamp)) > VALID_S:
        return f"x-timestamp is more than {VALID_S} seconds from now"
    try:
        raw_signature = base64.b64decode(signature, validate=True)
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key, validate=True))
        key.verify(raw_signature, signed_message(api_key, timestamp, path, method, body))
    except (binascii.Error, ValueError, InvalidSignature):
        return "x-signature does not verify"
    return None

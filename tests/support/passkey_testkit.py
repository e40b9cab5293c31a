"""A software passkey: an EC P-256 key that answers WebAuthn ceremonies as an authenticator
would (attestation ``none``), so the server side (``py_webauthn``) is tested for real."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import encode_cbor

_UP, _UV, _AT = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class SoftPasskey:
    """One credential for the relying party at ``origin`` (its host is the RP ID)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.rp_id = urlsplit(origin).hostname or ""
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(32)
        self.count = 0

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        body = {"type": kind, "challenge": challenge, "origin": origin or self.origin}
        return json.dumps({**body, "crossOrigin": False}).encode()

    def _auth_data(self, flags: int, extra: bytes = b"") -> bytes:
        self.count += 1
        rp_hash = hashlib.sha256(self.rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.count) + extra

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return encode_cbor(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def create(self, options: dict[str, Any], *, origin: str | None = None) -> dict[str, Any]:
        """The registration response to ``navigator.credentials.create`` options."""
        client = self._client_data("webauthn.create", options["challenge"], origin)
        attested = (
            bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id
            + self._cose_key()
        )  # fmt: skip
        auth = self._auth_data(_UP | _UV | _AT, attested)
        attestation = encode_cbor({"fmt": "none", "attStmt": {}, "authData": auth})
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "attestationObject": b64url(attestation),
            },
            "clientExtensionResults": {},
        }

    def get(
        self, options: dict[str, Any], *, origin: str | None = None, key: Any = None
    ) -> dict[str, Any]:
        """The assertion for ``navigator.credentials.get`` options (signed by ``key``, a
        stranger's, when given)."""
        client = self._client_data("webauthn.get", options["challenge"], origin)
        auth = self._auth_data(_UP | _UV)
        signer = key or self.key
        signature = signer.sign(auth + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "authenticatorData": b64url(auth),
                "signature": b64url(signature),
                "userHandle": b64url(b"ordergate-owner"),
            },
            "clientExtensionResults": {},
        }

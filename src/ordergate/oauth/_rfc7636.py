"""RFC 7636, Proof Key for Code Exchange by OAuth Public Clients (PKCE): S256 only.

Both authorization servers (the sandbox venue's, like the live one, and the gateway's) refuse
``plain`` and refuse a request without a challenge (which §4.3 would otherwise read as
``plain``), so only S256 exists here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

__all__ = [
    "S256",
    "is_valid_challenge",
    "is_valid_verifier",
    "s256_challenge",
    "verify_s256",
]

S256 = "S256"

# §4.1: code-verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
# §4.2: an S256 challenge is BASE64URL(SHA256(verifier)) without padding: always 43 chars.
_S256_CHALLENGE = re.compile(r"[A-Za-z0-9\-_]{43}")


def is_valid_verifier(verifier: str) -> bool:
    return _VERIFIER.fullmatch(verifier) is not None


def is_valid_challenge(challenge: str) -> bool:
    return _S256_CHALLENGE.fullmatch(challenge) is not None


def s256_challenge(verifier: str) -> str:
    """BASE64URL-ENCODE(SHA256(ASCII(code_verifier))), unpadded (§4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def verify_s256(verifier: str, challenge: str) -> bool:
    """Whether ``verifier`` is well formed and hashes to ``challenge`` (§4.6)."""
    if not is_valid_verifier(verifier):
        return False
    return hmac.compare_digest(s256_challenge(verifier), challenge)

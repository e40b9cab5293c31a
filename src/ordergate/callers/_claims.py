"""``CallerClaims`` and the token's wire format.

A caller token is ``base64url(payload) + "." + base64url(HMAC-SHA256(key, base64url(payload)))``,
base64url without padding. The payload is compact JSON, keys in this order::

    {"v":2,"caller":"NAME","profile":"P","mint":"M","exp":UNIX_SECONDS[,"connection":"ID"]}

Rules of the payload, all enforced when it is read (anything else is no payload):

- exactly these keys, no others and none twice; ``connection`` is optional;
- ``v`` is the integer 2; ``exp`` an integer count of seconds (booleans and floats are not);
- ``caller`` and ``connection`` are 1-64 of ``[A-Za-z0-9._-]``; ``profile`` 1-64 of
  ``[a-z0-9_-]``; ``mint`` (the mint id: one per token minted, what revokes it and what its
  caller's identity is told apart by) 16-64 of ``[A-Za-z0-9_-]``.

Version 1 (no mint id) is no longer read: such a token could not be revoked.

Tokens are ASCII and at most ``MAX_TOKEN_LENGTH`` characters; a longer string is refused
before any work is done on it.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = [
    "CALLER_PATTERN",
    "MAX_TOKEN_LENGTH",
    "MINT_PATTERN",
    "PROFILE_PATTERN",
    "VERSION",
    "CallerClaims",
    "b64url_decode",
    "b64url_encode",
    "encode_payload",
    "looks_like_caller_token",
    "parse_payload",
    "split_token",
]

VERSION = 2
MAX_TOKEN_LENGTH = 2048
CALLER_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
PROFILE_PATTERN = re.compile(r"[a-z0-9_-]{1,64}")
MINT_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")
# Signatures are 32 bytes: 43 base64url characters without padding.
SIGNATURE_LENGTH = 43

_PART = re.compile(r"[A-Za-z0-9_-]+")
_REQUIRED = frozenset({"v", "caller", "profile", "mint", "exp"})
_ALLOWED = _REQUIRED | {"connection"}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# 9999-12-31T23:59:59Z: the last second a datetime can hold.
_MAX_EXP = 253_402_300_799


@dataclass(frozen=True, slots=True)
class CallerClaims:
    """Who a verified caller token speaks for. Holds no part of the token itself (the mint id
    names the token; it is not enough to use it)."""

    caller: str
    profile: str
    mint_id: str
    expires_at: datetime
    connection: str | None = None


def b64url_encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes | None:
    """The bytes of unpadded base64url ``text``, or ``None`` unless it is exactly that (only
    the alphabet, no padding, and the one canonical spelling of those bytes)."""
    if len(text) % 4 == 1 or _PART.fullmatch(text) is None:
        return None
    # Cannot fail: the alphabet and the length are checked above.
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    # Unused low bits in the last character would let several spellings decode alike.
    return raw if b64url_encode(raw) == text else None


def split_token(token: str) -> tuple[str, str] | None:
    """The payload and signature parts of a token-shaped string, else ``None``: at most
    ``MAX_TOKEN_LENGTH`` ASCII characters, exactly one ".", both sides non-empty base64url
    and the signature the length of an HMAC-SHA256."""
    if len(token) > MAX_TOKEN_LENGTH or not token.isascii():
        return None
    payload, dot, signature = token.partition(".")
    if not dot or not payload or len(signature) != SIGNATURE_LENGTH:
        return None
    if _PART.fullmatch(payload) is None or _PART.fullmatch(signature) is None:
        return None
    return payload, signature


def encode_payload(claims: CallerClaims) -> str:
    """The base64url payload part of the token carrying ``claims``."""
    exp = (claims.expires_at - _EPOCH) // timedelta(seconds=1)
    body: dict[str, object] = {
        "v": VERSION,
        "caller": claims.caller,
        "profile": claims.profile,
        "mint": claims.mint_id,
        "exp": exp,
    }
    if claims.connection is not None:
        body["connection"] = claims.connection
    return b64url_encode(json.dumps(body, separators=(",", ":")).encode("ascii"))


class _Refused(ValueError):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise _Refused("a key given twice")
    return fields


def _no_float(text: str) -> Any:
    raise _Refused("not an integer")


def _json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(
            raw.decode("utf-8"),
            object_pairs_hook=_unique,
            parse_float=_no_float,
            parse_constant=_no_float,
        )
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _is_int(value: object) -> bool:
    # bool is an int subclass: true must not pass for 1.
    return type(value) is int


def parse_payload(raw: bytes) -> CallerClaims | None:
    """The claims in a decoded payload, or ``None`` unless it follows every rule above."""
    fields = _json_object(raw)
    if fields is None or not _REQUIRED <= fields.keys() <= _ALLOWED:
        return None
    version, caller, profile, mint_id, exp = (
        fields[name] for name in ("v", "caller", "profile", "mint", "exp")
    )
    connection = fields.get("connection")
    if not (_is_int(version) and version == VERSION and _is_int(exp) and 0 < exp <= _MAX_EXP):
        return None
    if not isinstance(caller, str) or CALLER_PATTERN.fullmatch(caller) is None:
        return None
    if not isinstance(profile, str) or PROFILE_PATTERN.fullmatch(profile) is None:
        return None
    if not isinstance(mint_id, str) or MINT_PATTERN.fullmatch(mint_id) is None:
        return None
    if "connection" in fields and (
        not isinstance(connection, str) or CALLER_PATTERN.fullmatch(connection) is None
    ):
        return None
    return CallerClaims(caller, profile, mint_id, _EPOCH + timedelta(seconds=exp), connection)


def looks_like_caller_token(token: str) -> bool:
    """Whether ``token`` has a caller token's shape (no signature check): two base64url parts,
    the first a JSON object with ``"v": 2``. Tells caller tokens from opaque OAuth tokens."""
    parts = split_token(token)
    if parts is None:
        return False
    raw = b64url_decode(parts[0])
    fields = None if raw is None else _json_object(raw)
    return fields is not None and _is_int(fields.get("v")) and fields.get("v") == VERSION

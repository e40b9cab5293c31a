"""Canonical bytes and hashes of what the ledger chains, and money as exact integers.

Canonical JSON: keys sorted, no whitespace, ASCII only (``\\uXXXX`` escapes), Decimals as their
canonical wire strings (``ordergate.core.to_wire``), floats refused. Two equal term mappings
always give the same text, and the text is what gets hashed and stored.

A chained record's hash is ``SHA-256(prev_hash ‖ body)``: ``prev_hash`` is the previous
record's 64 hex digits as ASCII (fixed width, so the concatenation is unambiguous) and ``body``
is the record's immutable fields, UTF-8, joined by U+001F (the ASCII unit separator) after a
version tag. No field may hold a control character (the writer refuses them; JSON fields
escape them), so a body has exactly one separator fewer than fields and cannot be re-split
differently; the verifier counts them. A join is used rather than a JSON array because
verification is bound by this encoding: the join costs a fifth of ``json.dumps``.

Filings filed since migration 0003 are ``ordergate.filing/2`` (``linked_filing_body``): each
links to the previous filing *of its account*, and its body holds both its place in the ledger
(``seq``) and its place in its account's chain (``account_seq``). Filings from before it stay
``ordergate.filing/1`` (``filing_body``): one chain over the whole ledger. A checkpoint of the
filings covers every account's chain at once: ``heads_digest`` is the
SHA-256 of a tag and each account's last hash, in account order (``GENESIS`` for none).

Amounts that SQL must add up (reservations) are stored as whole units of 10⁻⁸ USD in a
BIGINT: exact on both SQLite (which has no decimal type; its NUMERIC affinity would keep a
float) and Postgres, and a 64-bit count of 10⁻⁸ dollars reaches 92 billion dollars.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import ROUND_CEILING, Decimal
from typing import Any
from uuid import UUID

from ordergate.core import to_wire
from ordergate.store import iso

__all__ = [
    "ACCOUNT_FILING_TAG",
    "EVENT_TAG",
    "FILING_TAG",
    "GENESIS",
    "HEADS_TAG",
    "SEPARATOR",
    "UNIT",
    "canonical_json",
    "chain_hash",
    "event_body",
    "filing_body",
    "from_units",
    "has_control",
    "heads_digest",
    "linked_filing_body",
    "plain_json",
    "to_units",
]

GENESIS = "0" * 64
UNIT = Decimal("0.00000001")
_SCALE = 10**8
SEPARATOR = "\x1f"
FILING_TAG = "ordergate.filing/1"
ACCOUNT_FILING_TAG = "ordergate.filing/2"
HEADS_TAG = "ordergate.filing-heads/2"
EVENT_TAG = "ordergate.filing-event/1"
_dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), sort_keys=True).encode
_SCALARS = frozenset({str, int, bool, type(None)})


def has_control(text: str) -> bool:
    """Whether ``text`` holds a C0 control character or DEL (never allowed in a field)."""
    return not text.isprintable() and any(ord(c) < 0x20 or ord(c) == 0x7F for c in text)


def _plain(value: object, path: str) -> Any:
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Decimal):
        return to_wire(value)
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path}: keys must be strings")
            out[key] = _plain(item, f"{path}.{key}")
        return out
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [_plain(item, f"{path}[{index}]") for index, item in enumerate(value)]
    # Floats land here on purpose: money in the record is never binary floating point.
    raise TypeError(f"{path}: {type(value).__name__} has no canonical form (use Decimal or str)")


def plain_json(value: object) -> Any:
    """``value`` as plain JSON data (Decimals as wire strings); ``TypeError`` naming the path
    for a float or an object without a canonical form."""
    return _plain(value, "$")


def canonical_json(value: object) -> str:
    """The canonical JSON text of ``value`` (see ``plain_json`` for what is refused)."""
    return _dumps(_plain(value, "$"))


def to_units(amount: Decimal) -> int:
    """``amount`` in 10⁻⁸ USD, rounded up: a reservation never holds less than was asked."""
    if not amount.is_finite():
        raise ValueError("an amount must be a finite decimal")
    return int((amount / UNIT).to_integral_value(ROUND_CEILING))


def from_units(units: int) -> Decimal:
    return Decimal(units) / _SCALE


def filing_body(
    seq: int,
    filing_id: str,
    identity: str,
    account: str,
    created_at: str,
    kind: str,
    status: str,
    decision: str,
    reasons: str,
    terms: str,
    notional: str,
) -> bytes:
    """The body of a filing in the ledger-wide chain of ``ordergate.filing/1`` (filed before
    migration 0003)."""
    return SEPARATOR.join(
        (FILING_TAG, str(seq), filing_id, identity, account, created_at, kind, status,
         decision, reasons, terms, notional)
    ).encode()  # fmt: skip


def linked_filing_body(
    seq: int,
    account_seq: int,
    filing_id: str,
    identity: str,
    account: str,
    created_at: str,
    kind: str,
    status: str,
    decision: str,
    reasons: str,
    terms: str,
    notional: str,
) -> bytes:
    """The body of a filing in its account's chain (``ordergate.filing/2``)."""
    return SEPARATOR.join(
        (ACCOUNT_FILING_TAG, str(seq), str(account_seq), filing_id, identity, account,
         created_at, kind, status, decision, reasons, terms, notional)
    ).encode()  # fmt: skip


def heads_digest(heads: Iterable[tuple[str, str]]) -> str:
    """The checkpoint digest of ``(account, last hash)`` pairs: ``GENESIS`` when there are
    none, else SHA-256 of the tag and every pair in account order, all joined by U+001F."""
    ordered = sorted(heads)
    if not ordered:
        return GENESIS
    fields = [HEADS_TAG]
    for account, digest in ordered:
        fields += (account, digest)
    return hashlib.sha256(SEPARATOR.join(fields).encode()).hexdigest()


def event_body(
    seq: int, filing_id: str, created_at: str, kind: str, status: str, detail: str
) -> bytes:
    return SEPARATOR.join(
        (EVENT_TAG, str(seq), filing_id, created_at, kind, status, detail)
    ).encode()


def chain_hash(prev_hash: str, body: bytes) -> str:
    """``SHA-256(prev_hash ‖ body)`` as 64 lowercase hex digits."""
    return hashlib.sha256(prev_hash.encode("ascii") + body).hexdigest()

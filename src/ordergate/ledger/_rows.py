"""Turning stored rows back into records, and parsing the stored time format."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any
from uuid import UUID

from ordergate.ledger._models import Decision, EventRecord, FilingRecord, FilingStatus
from ordergate.store import parse_iso

__all__ = ["event_record", "filing_record"]


def filing_record(row: Any, status: str | None = None) -> FilingRecord:
    outcome = FilingStatus(row.status)
    return FilingRecord(
        seq=row.seq,
        id=UUID(row.id),
        identity=row.identity,
        account=row.account,
        created_at=parse_iso(row.created_at),
        kind=row.kind,
        outcome=outcome,
        status=FilingStatus(status) if status else outcome,
        decision=Decision(row.decision),
        reasons=tuple(json.loads(row.reasons)),
        terms=json.loads(row.terms),
        notional=Decimal(row.notional),
        prev_hash=row.prev_hash,
        hash=row.hash,
    )


def event_record(row: Any) -> EventRecord:
    return EventRecord(
        seq=row.seq,
        filing_id=UUID(row.filing_id),
        created_at=parse_iso(row.created_at),
        kind=row.kind,
        status=row.status,
        detail=json.loads(row.detail),
        hash=row.hash,
    )

"""Track records: per identity, its graded count, mean and median excess bps and hit rate,
and its rank among identities once ``RANK_AFTER`` of its placements are graded.

Every figure is exact ``Decimal`` arithmetic over the stored grades, rounded once at the end,
half to even: means and medians to hundredths of a basis point, the hit rate (the share of
grades with a positive excess) to four places. Ranks order the identities that have earned
one by mean excess, best first (ties: the higher median, then more grades, then the public
id), numbered from 1; an identity with fewer graded placements has no rank.

On any view beyond the owner's an identity is shown only as ``public_id(identity)``.
"""

from __future__ import annotations

import hashlib
import statistics
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import Any

from sqlalchemy import Engine, select

from ordergate.core import to_wire
from ordergate.record._arithmetic import BPS_PLACES
from ordergate.record._schema import grades

__all__ = ["RANK_AFTER", "TrackRecord", "grades_of", "public_id", "track_of", "track_records"]

RANK_AFTER = 30
GRADES_LIMIT = 50
_GRADED = "graded"
_RATE_PLACES = Decimal("0.0001")
_PUBLIC_PREFIX = b"ordergate.record.v1:"


def public_id(identity: str) -> str:
    """The identity as a public view names it: ``id-`` and 16 hex digits of its SHA-256."""
    digest = hashlib.sha256(_PUBLIC_PREFIX + identity.encode()).hexdigest()
    return f"id-{digest[:16]}"


@dataclass(frozen=True, slots=True)
class TrackRecord:
    identity: str
    graded: int
    mean_bps: Decimal | None
    median_bps: Decimal | None
    hit_rate: Decimal | None
    rank: int | None

    def as_json(self, *, public: bool = False) -> dict[str, Any]:
        """The record on the wire; ``public`` names the identity by ``public_id`` only."""
        shown = {"id": public_id(self.identity)} if public else {"identity": self.identity}
        return {
            **shown,
            "graded": self.graded,
            "mean_excess_bps": _wire(self.mean_bps),
            "median_excess_bps": _wire(self.median_bps),
            "hit_rate": _wire(self.hit_rate),
            "rank": self.rank,
            "ranked_after": RANK_AFTER,
        }


def _wire(value: Decimal | None) -> str | None:
    return None if value is None else to_wire(value)


def _summary(identity: str, excesses: list[Decimal]) -> TrackRecord:
    if not excesses:
        return TrackRecord(identity, 0, None, None, None, None)
    with localcontext() as context:
        context.prec = 40
        count = Decimal(len(excesses))
        mean = sum(excesses, Decimal(0)) / count
        median = statistics.median(excesses)
        hits = Decimal(sum(1 for excess in excesses if excess > 0)) / count
    return TrackRecord(
        identity=identity,
        graded=len(excesses),
        mean_bps=mean.quantize(BPS_PLACES, rounding=ROUND_HALF_EVEN),
        median_bps=Decimal(median).quantize(BPS_PLACES, rounding=ROUND_HALF_EVEN),
        hit_rate=hits.quantize(_RATE_PLACES, rounding=ROUND_HALF_EVEN),
        rank=None,
    )


def track_records(engine: Engine) -> list[TrackRecord]:
    """Every identity with a graded placement: the ranked ones by rank, then the rest by
    public id. Reads every grade (an owner's or a public view, not a hot path)."""
    query = select(grades.c.identity, grades.c.excess_bps).where(grades.c.state == _GRADED)
    by_identity: dict[str, list[Decimal]] = {}
    with engine.connect() as connection:
        for identity, excess in connection.execute(query):
            by_identity.setdefault(identity, []).append(Decimal(excess))
    summaries = [_summary(identity, values) for identity, values in by_identity.items()]
    ranked = sorted(
        (s for s in summaries if s.graded >= RANK_AFTER),
        key=lambda s: (-(s.mean_bps or 0), -(s.median_bps or 0), -s.graded, public_id(s.identity)),
    )
    rest = sorted(
        (s for s in summaries if s.graded < RANK_AFTER), key=lambda s: public_id(s.identity)
    )
    numbered = [
        TrackRecord(s.identity, s.graded, s.mean_bps, s.median_bps, s.hit_rate, place)
        for place, s in enumerate(ranked, start=1)
    ]
    return numbered + rest


def track_of(engine: Engine, identity: str) -> TrackRecord:
    """``identity``'s own track record: its own grades (ix_grades_identity) and, only once it
    has earned a rank, every identity's, to place it among them."""
    query = select(grades.c.excess_bps).where(
        grades.c.identity == identity, grades.c.state == _GRADED
    )
    with engine.connect() as connection:
        own = [Decimal(excess) for (excess,) in connection.execute(query)]
    if len(own) < RANK_AFTER:
        return _summary(identity, own)
    return next(record for record in track_records(engine) if record.identity == identity)


def grades_of(engine: Engine, identity: str, *, limit: int = GRADES_LIMIT) -> list[dict[str, Any]]:
    """``identity``'s latest ``limit`` filled placements and their grades (``pending`` until
    the close one trading day on is known), newest fill first (ix_grades_identity). Nothing of
    any other identity; no account."""
    if limit < 1:
        raise ValueError("limit must be positive")
    query = (
        select(grades)
        .where(grades.c.identity == identity)
        .order_by(grades.c.filled_at.desc(), grades.c.filing_id)
        .limit(limit)
    )
    with engine.connect() as connection:
        return [_grade_wire(row) for row in connection.execute(query)]


def _grade_wire(row: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "filing_id": row.filing_id,
        "symbol": row.symbol,
        "side": row.side,
        "quantity": row.quantity,
        "fill_price": row.fill_price,
        "filled_at": row.filled_at,
        "grading_day": row.grading_day,
        "state": row.state,
    }
    if row.state == _GRADED:
        entry.update(
            close=row.close,
            spy_start=row.spy_start,
            spy_close=row.spy_close,
            return_bps=row.return_bps,
            spy_bps=row.spy_bps,
            excess_bps=row.excess_bps,
            graded_at=row.graded_at,
        )
    return entry

"""The record as the owner and as the public see it.

``owner_view``: every identity in full beside its public id, and how many fills wait for
their close. ``public_view``: the identities by public id only, with their counts, grades
(mean and median excess, hit rate) and ranks — nothing else: no identity, symbol, side,
price, time or account.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, func, select

from ordergate.record._schema import grades
from ordergate.record._track import RANK_AFTER, public_id, track_records

__all__ = ["owner_view", "public_view"]


def owner_view(engine: Engine) -> dict[str, Any]:
    records = [
        {**record.as_json(), "public_id": public_id(record.identity)}
        for record in track_records(engine)
    ]
    with engine.connect() as connection:
        pending = connection.execute(
            select(func.count()).select_from(grades).where(grades.c.state == "pending")
        ).scalar_one()
    return {"records": records, "pending": int(pending), "ranked_after": RANK_AFTER}


def public_view(engine: Engine) -> dict[str, Any]:
    records = [record.as_json(public=True) for record in track_records(engine)]
    return {"records": records, "ranked_after": RANK_AFTER}

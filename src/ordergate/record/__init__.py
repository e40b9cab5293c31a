"""The graded record: every filled placement graded one trading day after its fill, and a
track record per identity.

A grade is the return from the average fill price to the regular close of the next NYSE
session day, minus SPY's return over the same span, negated for a sell, in basis points
(``excess_bps``; exact ``Decimal``, rounded half to even to 0.01 bps). The ``Grader`` runs
inside ``ordergate serve`` and on demand (``ordergate record grade``); its grades are ledger
records, written once per filing. Prices come through the ``Closes`` protocol —
``MarketCloses`` reads the upstream's (or the sandbox's) historicals; a missing price leaves
a grade pending, never guessed. ``track_records`` ranks identities once ``RANK_AFTER`` of
their placements are graded; public views show ``public_id``s only.

Raises: ``ValueError`` for a non-positive price or batch; ``ToolError`` (from the client)
when the upstream cannot answer ``MarketCloses``; the grader itself counts those as
unreachable and tries again later.
"""

from ordergate.record._arithmetic import BPS_PLACES, Excess, excess_bps
from ordergate.record._closes import Closes, MarketCloses
from ordergate.record._days import grading_day
from ordergate.record._grader import BENCHMARK, GradePass, Grader
from ordergate.record._track import (
    RANK_AFTER,
    TrackRecord,
    grades_of,
    public_id,
    track_of,
    track_records,
)
from ordergate.record._views import owner_view, public_view

__all__ = [
    "BENCHMARK",
    "BPS_PLACES",
    "RANK_AFTER",
    "Closes",
    "Excess",
    "GradePass",
    "Grader",
    "MarketCloses",
    "TrackRecord",
    "excess_bps",
    "grades_of",
    "grading_day",
    "owner_view",
    "public_id",
    "public_view",
    "track_of",
    "track_records",
]

"""What stage B made of a reviewed order, and a placement still to be recorded: the pieces
every lane's last step shares (``Guard.after_review`` and ``Guard.placed``)."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass

from ordergate.ledger import Approval, FilingStatus
from ordergate.venues import Placement

__all__ = ["Reviewed", "unrecorded"]


@dataclass(frozen=True, slots=True)
class Reviewed:
    """What stage B made of a reviewed order (the equity and the crypto check alike)."""

    refused: tuple[str, ...]  # why stage B stops the order; empty when it goes on
    status: FilingStatus  # the filing's status as the check read it
    looked: object | None = None  # what the venue's lane looked at for the placement
    held_again: Approval | None = None  # the new approval of an order that cost more
    figures: tuple[str, ...] = ()  # the numbers behind stage B's refusal (``refusal_figures``)


async def unrecorded(placing: Awaitable[Placement]) -> tuple[Placement, None]:
    """A placement the venue left to the guard to record (``Guard.placed``)."""
    return await placing, None

"""``Decision``: what the engine answers, and ``Stage``: which pass produced it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ordergate.policy._reasons import ReasonCode

__all__ = ["Decision", "Stage"]


class Stage(StrEnum):
    """Stage A (``estimate``) runs on terms estimated from a live quote before anything is
    sent; stage B (``review``, authoritative) on the terms ``review_equity_order`` returned,
    immediately before ``place``."""

    ESTIMATE = "estimate"
    REVIEW = "review"


@dataclass(frozen=True, slots=True)
class Decision:
    """``allowed`` is true exactly when ``reasons`` is empty. ``reasons`` lists every failing
    check, in the engine's fixed rule order. ``requires_approval`` is only ever true for an
    allowed order. ``reduces_position``: the order only reduces or closes a position."""

    allowed: bool
    reasons: tuple[ReasonCode, ...]
    stage: Stage
    requires_approval: bool
    reduces_position: bool

    @property
    def codes(self) -> tuple[str, ...]:
        """The reason codes as plain strings, for journals and wire answers."""
        return tuple(reason.value for reason in self.reasons)

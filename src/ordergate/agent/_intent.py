"""``Intent``: one order a strategy wants, before the wall has seen it; ``Plan``: a tick's
intents in the order they are to be submitted, or a hold, each with its rationale."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from ordergate.core import MarketHours, Side
from ordergate.policy import Proposal

__all__ = ["Intent", "Plan"]


@dataclass(frozen=True, slots=True)
class Intent:
    """Buy or sell ``symbol``: a dollar amount (``notional``) or, to close a position, its
    whole ``quantity``. ``rationale`` is the strategy's own sentence for the journal."""

    side: Side
    symbol: str
    rationale: str
    notional: Decimal | None = None
    quantity: Decimal | None = None

    def proposal(self, hours: MarketHours) -> Proposal:
        """The order the wall is asked for (``ProposalError`` when it cannot be named)."""
        return Proposal(
            symbol=self.symbol,
            side=self.side,
            notional=self.notional,
            quantity=self.quantity,
            market_hours=hours,
        )


@dataclass(frozen=True, slots=True)
class Plan:
    """Sells first, then buys; no intents is a hold, and ``rationale`` says why."""

    rationale: str
    intents: tuple[Intent, ...] = field(default=())
    dropped: tuple[str, ...] = field(default=())

    @property
    def hold(self) -> bool:
        return not self.intents

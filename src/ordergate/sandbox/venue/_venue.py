"""The venue's whole state for one sandbox user: clock, market, accounts, desks and fault knobs
(the market and the knobs shared by every user's venue).

Nothing runs in the background. Every request first calls ``sync()``, which moves each desk
(order matching, fills, expiries) up to the clock's current instant. So a stepped clock makes
the venue fully deterministic, and a realtime clock still shows fills arriving over time.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Protocol

from ordergate.core import Clock
from ordergate.sandbox.market import Market
from ordergate.sandbox.venue._accounts import Accounts
from ordergate.sandbox.venue._faults import Faults
from ordergate.sandbox.venue._ids import IdFactory

__all__ = ["Desk", "Venue"]


class Desk(Protocol):
    def sync(self, now: datetime) -> None:
        """Advance this desk's orders to ``now``."""
        ...

    def idle(self, now: datetime) -> bool:
        """``sync(now)`` would move nothing: nothing open to walk, nothing due."""
        ...


class Venue:
    def __init__(
        self,
        *,
        seed: int,
        clock: Clock,
        cash: Decimal = Decimal("100000.00"),
        approval_required: bool = False,
        account_type: str = "cash",
        option_level: int = 2,
        agentic_numbers: tuple[str, str] | None = None,
        user: str = "",
        market: Market | None = None,
        faults: Faults | None = None,
    ) -> None:
        """``user``: the sandbox user whose accounts these are, their ids and account numbers
        their own (``""``: the one unnamed user); ``market`` and ``faults``: shared with the
        other users' venues (else this venue's own)."""
        self.seed = seed
        self.clock = clock
        self.user = user
        self.ids = IdFactory(seed, user)
        self.market = market if market is not None else Market(seed=seed, clock=clock)
        self.accounts = Accounts(
            self.ids,
            cash=cash,
            approval_required=approval_required,
            account_type=account_type,
            option_level=option_level,
            agentic_numbers=agentic_numbers,
        )
        self.faults = faults if faults is not None else Faults()
        self.desks: list[Desk] = []
        self._synced_to: datetime | None = None

    def add_desk(self, desk: Desk) -> None:
        self.desks.append(desk)

    def now(self) -> datetime:
        return self.clock.now()

    @property
    def synced_to(self) -> datetime | None:
        """The instant the desks were last brought up to (``None``: never)."""
        return self._synced_to

    def resume(self, synced_to: datetime | None) -> None:
        """Carry on from desks last synced to ``synced_to`` (a venue reloaded from storage)."""
        self._synced_to = synced_to

    def idle(self) -> bool:
        """Bringing the desks up to the clock would move nothing (every desk ``idle``)."""
        now = self.clock.now()
        return self._synced_to is not None and all(desk.idle(now) for desk in self.desks)

    def sync(self) -> datetime:
        """Bring every desk up to the clock; returns the instant synced to."""
        now = self.clock.now()
        # Again at the instant already synced to: a walk there is a no-op for orders, and a
        # desk applies what was announced at that instant since (a split of the feed's).
        if self._synced_to is None or now >= self._synced_to:
            for desk in self.desks:
                desk.sync(now)
            self._synced_to = now
        return now

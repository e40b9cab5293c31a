"""Which desks the venue runs. Each desk owns one family's orders and moves them on ``sync``."""

from __future__ import annotations

from ordergate.sandbox.venue._crypto import CryptoDesk
from ordergate.sandbox.venue._equity import EquityDesk
from ordergate.sandbox.venue._lists import Lists
from ordergate.sandbox.venue._options import OptionsDesk
from ordergate.sandbox.venue._venue import Venue

__all__ = ["build_desks"]


def build_desks(venue: Venue) -> None:
    """Attach every desk to ``venue``."""
    venue.add_desk(EquityDesk(venue))
    venue.add_desk(OptionsDesk(venue))
    venue.add_desk(CryptoDesk(venue))
    venue.add_desk(Lists(venue))

"""The market's exception tree.

::

    OrdergateError
    └── MarketError                    anything the simulated market refuses
        ├── UnknownInstrument          no equity, index, pair or option by that name or id
        ├── InvalidInterval            a historicals interval the venue does not know
        └── InvalidBounds              a historicals bounds value the venue does not know

Each carries its reason as ``code`` and the offending value as an attribute, so callers
assert on codes, never on message text. The lookup and value errors also derive from
``LookupError`` / ``ValueError`` so plain ``except`` clauses keep working.

Instants and dates outside the NYSE calendar raise the calendar's own ``OutOfCalendar`` /
``NotASessionDay`` (``ordergate.calendar``, under ``CalendarError``), not a ``MarketError``.
"""

from __future__ import annotations

from ordergate.core import OrdergateError

__all__ = [
    "InvalidBounds",
    "InvalidInterval",
    "MarketError",
    "UnknownInstrument",
]


class MarketError(OrdergateError):
    """Root of every error the simulated market raises."""

    code = "market_error"


class UnknownInstrument(MarketError, LookupError):
    """No instrument of that symbol or id is listed."""

    code = "unknown_instrument"

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"no instrument {key!r} is listed")


class InvalidInterval(MarketError, ValueError):
    """The historicals interval is not one the venue serves."""

    code = "invalid_interval"

    def __init__(self, interval: str) -> None:
        self.interval = interval
        super().__init__(f"unknown interval {interval!r}")


class InvalidBounds(MarketError, ValueError):
    """The historicals bounds value is not one the venue serves."""

    code = "invalid_bounds"

    def __init__(self, bounds: str) -> None:
        self.bounds = bounds
        super().__init__(f"unknown bounds {bounds!r}")

"""``Proposal``: an order as the order path can name it; ``Terms``: its priced terms.

A ``Proposal`` is validated on construction and raises ``ProposalError(field, reason)`` for
anything the order path cannot name: both or neither of quantity and dollar amount, a
non-positive or non-Decimal amount, a limit price on a market order, a missing stop price.
Its symbol is upper-cased; a symbol with space or a control character around it is refused
(``symbol``), never stripped; any other symbol that is not a plain ticker is kept as given so
the engine refuses it with ``symbol_malformed`` and the refusal is recorded.

``Terms`` are what the caps are measured on: at stage A estimated from a live quote
(``estimate_terms``), at stage B the terms ``review_equity_order`` returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ordergate.core import ZERO, MarketHours, OrderType, Side, TimeInForce
from ordergate.policy._errors import ProposalError
from ordergate.policy._state import Quote
from ordergate.policy._symbols import is_padded, normalise_symbol

__all__ = ["Proposal", "Terms", "estimate_terms"]


@dataclass(frozen=True, slots=True)
class Proposal:
    """One equity order: ``quantity`` (shares) XOR ``notional`` (a dollar amount)."""

    symbol: str
    side: Side
    quantity: Decimal | None = None
    notional: Decimal | None = None
    order_type: OrderType = OrderType.MARKET
    limit_price: Decimal | None = None
    stop_price: Decimal | None = None
    time_in_force: TimeInForce = TimeInForce.GFD
    market_hours: MarketHours = MarketHours.REGULAR_HOURS
    account: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.symbol, str):
            raise ProposalError("symbol", "must be a string")
        if is_padded(self.symbol):
            raise ProposalError("symbol", "has space or a control character around the ticker")
        normal = normalise_symbol(self.symbol)
        if normal is not None:
            object.__setattr__(self, "symbol", normal)
        for name, kind in (
            ("side", Side),
            ("order_type", OrderType),
            ("time_in_force", TimeInForce),
            ("market_hours", MarketHours),
        ):
            if not isinstance(getattr(self, name), kind):
                raise ProposalError(name, f"must be a {kind.__name__}")
        if (self.quantity is None) == (self.notional is None):
            raise ProposalError("quantity", "give exactly one of quantity and notional")
        for name in ("quantity", "notional", "limit_price", "stop_price"):
            _positive_or_none(name, getattr(self, name))
        needs_limit = self.order_type.needs_limit_price
        if needs_limit != (self.limit_price is not None):
            reason = "required for this order type" if needs_limit else "not for this order type"
            raise ProposalError("limit_price", reason)
        needs_stop = self.order_type.needs_stop_price
        if needs_stop != (self.stop_price is not None):
            reason = "required for this order type" if needs_stop else "not for this order type"
            raise ProposalError("stop_price", reason)

    @property
    def is_fractional(self) -> bool:
        """A dollar-amount order, or a quantity that is not a whole number of shares."""
        quantity = self.quantity
        return quantity is None or quantity != quantity.to_integral_value()


def _positive_or_none(name: str, value: object) -> None:
    if value is None:
        return
    if not isinstance(value, Decimal) or not value.is_finite():
        raise ProposalError(name, "must be a finite Decimal")
    if value <= 0:
        raise ProposalError(name, "must be positive")


@dataclass(frozen=True, slots=True)
class Terms:
    """Priced terms: the price used, the notional, the share quantity, the fees (USD).

    Any of price, notional and quantity may be unknown (``None``): the checks that need it
    refuse with ``missing_data:terms.<field>``.
    """

    price: Decimal | None
    notional: Decimal | None
    quantity: Decimal | None
    fees: Decimal = ZERO


def estimate_terms(proposal: Proposal, quote: Quote | None) -> Terms:
    """Stage A terms from a live quote, leaning against the order: a market buy at the ask,
    a market sell at the bid, a limit order at its limit. No usable price → unknown terms."""
    price: Decimal | None
    if proposal.limit_price is not None:
        price = proposal.limit_price
    elif quote is None:
        price = None
    else:
        price = quote.ask if proposal.side is Side.BUY else quote.bid
        if price is not None and price <= 0:
            price = None
    if proposal.quantity is not None:
        quantity: Decimal | None = proposal.quantity
        notional = None if price is None else proposal.quantity * price
    else:
        notional = proposal.notional
        quantity = None if price is None or notional is None else notional / price
    return Terms(price=price, notional=notional, quantity=quantity)

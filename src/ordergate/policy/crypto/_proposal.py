"""``CryptoProposal``: a crypto order as the order path can name it; ``CryptoTerms``: its
priced terms.

A ``CryptoProposal`` is validated on construction and raises ``ProposalError(field,
reason)`` for anything the order path cannot name, as ``Proposal`` does for equities:

- ``pair`` in the venue's ``BTC-USD`` form (upper-cased; space or a control character around
  it refused, never stripped);
- exactly one of ``asset_quantity`` (units of the asset) and ``quote_amount`` (dollars), each
  a positive finite ``Decimal`` in plain notation (an exponent above zero is refused), with
  at most ``MAX_PLACES`` places; ``quote_amount`` in whole cents and on a market order only
  (as both of the venue's lanes take it);
- ``limit_price`` on limit and stop_limit orders only, ``stop_price`` on stop_loss and
  stop_limit only (each required there);
- ``time_in_force`` one the venue takes (``CryptoTimeInForce``, ``gtc`` unless given).

More places than the pair's own ``asset_increment`` allows is the policy's refusal
(``crypto_increment``), weighed against the venue's pairs.

``CryptoTerms`` are what the caps weigh: at stage A estimated from the best bid and ask
(``estimate_crypto_terms``: a size in units converted at the far side of the quote), at
stage B what the lane's review priced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ordergate.core import ZERO, CryptoOrderType, CryptoTimeInForce, Side
from ordergate.policy._errors import ProposalError
from ordergate.policy._symbols import is_padded
from ordergate.policy.crypto._amounts import MAX_PLACES, decimal_places
from ordergate.policy.crypto._quote import CryptoQuote

__all__ = ["CryptoProposal", "CryptoTerms", "estimate_crypto_terms"]

_PAIR = re.compile(r"[A-Z0-9]{1,12}-USD")
_LIMIT_TYPES = frozenset({CryptoOrderType.LIMIT, CryptoOrderType.STOP_LIMIT})
_STOP_TYPES = frozenset({CryptoOrderType.STOP_LOSS, CryptoOrderType.STOP_LIMIT})
_CENT_PLACES = 2


@dataclass(frozen=True, slots=True)
class CryptoProposal:
    """One crypto order: ``asset_quantity`` (units) XOR ``quote_amount`` (dollars)."""

    pair: str
    side: Side
    asset_quantity: Decimal | None = None
    quote_amount: Decimal | None = None
    order_type: CryptoOrderType = CryptoOrderType.MARKET
    limit_price: Decimal | None = None
    stop_price: Decimal | None = None
    time_in_force: CryptoTimeInForce = CryptoTimeInForce.GTC
    account: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pair, str):
            raise ProposalError("pair", "must be a string")
        if is_padded(self.pair):
            raise ProposalError("pair", "has space or a control character around the pair")
        pair = self.pair.upper()
        if not _PAIR.fullmatch(pair):
            raise ProposalError("pair", "must name a pair as the venue does, e.g. BTC-USD")
        object.__setattr__(self, "pair", pair)
        for name, kind in (
            ("side", Side),
            ("order_type", CryptoOrderType),
            ("time_in_force", CryptoTimeInForce),
        ):
            if not isinstance(getattr(self, name), kind):
                raise ProposalError(name, f"must be a {kind.__name__}")
        if (self.asset_quantity is None) == (self.quote_amount is None):
            raise ProposalError(
                "asset_quantity", "give exactly one of asset_quantity and quote_amount"
            )
        for name in ("asset_quantity", "quote_amount", "limit_price", "stop_price"):
            _amount_or_none(name, getattr(self, name))
        if self.quote_amount is not None:
            if self.order_type is not CryptoOrderType.MARKET:
                raise ProposalError("quote_amount", "only on a market order")
            if decimal_places(self.quote_amount) > _CENT_PLACES:
                raise ProposalError("quote_amount", "must be in whole cents")
        needs_limit = self.order_type in _LIMIT_TYPES
        if needs_limit != (self.limit_price is not None):
            reason = "required for this order type" if needs_limit else "not for this order type"
            raise ProposalError("limit_price", reason)
        needs_stop = self.order_type in _STOP_TYPES
        if needs_stop != (self.stop_price is not None):
            reason = "required for this order type" if needs_stop else "not for this order type"
            raise ProposalError("stop_price", reason)
        if self.account is not None and (not isinstance(self.account, str) or not self.account
                                         or is_padded(self.account)):  # fmt: skip
            raise ProposalError("account", "must be the account number as the venue gives it")

    @property
    def symbol(self) -> str:
        """The pair, under the name the shared checks read an order's instrument by."""
        return self.pair


def _amount_or_none(name: str, value: object) -> None:
    if value is None:
        return
    if not isinstance(value, Decimal) or not value.is_finite():
        raise ProposalError(name, "must be a finite Decimal")
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent > 0:
        raise ProposalError(name, "scientific notation is not accepted; write the number out")
    if decimal_places(value) > MAX_PLACES:
        raise ProposalError(name, f"at most {MAX_PLACES} decimal places")
    if value <= 0:
        raise ProposalError(name, "must be positive")


@dataclass(frozen=True, slots=True)
class CryptoTerms:
    """Priced terms: the price per unit, the units, the notional and the fees (USD).

    Any of price, quantity and notional may be unknown (``None``): the checks that need it
    refuse with ``missing_data:terms.<field>``."""

    price: Decimal | None
    quantity: Decimal | None
    notional: Decimal | None
    fees: Decimal = ZERO


def _far_price(proposal: CryptoProposal, quote: CryptoQuote | None) -> Decimal | None:
    """The price that makes the order's dollars largest: a buy at the ask (or its limit), a
    sell at the bid (or its limit, when higher); a stop buy no lower than its stop."""
    far: Decimal | None = None
    if quote is not None:
        far = quote.ask if proposal.side is Side.BUY else quote.bid
        if far is not None and far <= 0:
            far = None
    if proposal.side is Side.BUY:
        if proposal.limit_price is not None:
            return proposal.limit_price
        if proposal.stop_price is not None and far is not None:
            return max(far, proposal.stop_price)
        return far
    if proposal.limit_price is not None:
        return proposal.limit_price if far is None else max(far, proposal.limit_price)
    return far


def estimate_crypto_terms(proposal: CryptoProposal, quote: CryptoQuote | None) -> CryptoTerms:
    """Stage A terms from the best bid and ask, leaning against the caps: a size in units
    converted to dollars at the far side of the quote (``_far_price``); a dollar amount
    converted to units at the same price. No usable price → unknown price and conversion."""
    price = _far_price(proposal, quote)
    if proposal.asset_quantity is not None:
        quantity: Decimal | None = proposal.asset_quantity
        notional = None if price is None else proposal.asset_quantity * price
    else:
        notional = proposal.quote_amount
        quantity = None if price is None or notional is None else notional / price
    return CryptoTerms(price=price, quantity=quantity, notional=notional)

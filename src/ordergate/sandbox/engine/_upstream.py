"""An upstream broker's quote as the engine's feed takes it: the one translation at the edge.

A Robinhood ``get_equity_quotes`` entry (``ordergate.client.market.EquityQuote``) carries
bid, ask and last with their venue times, not the sizes quoted: the caller says what size
each side shows (the most one look at the market may fill). A quote whose bid, ask or last
is not positive (the client reads an absent amount as zero) is no usable quote (``None``):
the engine then refuses a market order and lets a resting one wait. The quote is true as of
the older of its bid and ask times, so a side that has not moved is never taken as fresher
than it is.
"""

from __future__ import annotations

from decimal import Decimal

from ordergate.client.market import EquityQuote as UpstreamQuote
from ordergate.sandbox.venue._equity_market import EquityQuote

__all__ = ["observed_quote"]


def observed_quote(
    upstream: UpstreamQuote, *, bid_size: Decimal, ask_size: Decimal
) -> EquityQuote | None:
    """``upstream`` as ``ObservedPrices.observe`` takes it; ``None`` when it has no usable
    price. ``ValueError`` for a size that is not positive."""
    if bid_size <= 0 or ask_size <= 0:
        raise ValueError("a quoted size must be positive")
    prices = (upstream.bid_price, upstream.ask_price, upstream.last_trade_price)
    if any(price <= 0 for price in prices):
        return None
    return EquityQuote(
        symbol=upstream.symbol.strip().upper(),
        bid=upstream.bid_price,
        ask=upstream.ask_price,
        last=upstream.last_trade_price,
        bid_size=bid_size,
        ask_size=ask_size,
        previous_close=upstream.adjusted_previous_close,
        previous_close_date=upstream.previous_close_date,
        at=min(upstream.venue_bid_time, upstream.venue_ask_time),
        last_trade_at=upstream.venue_last_trade_time,
        last_non_regular=upstream.last_non_reg_trade_price,
        last_non_regular_at=upstream.venue_last_non_reg_trade_time,
    )

"""An upstream broker's quote as the engine's feed takes it: the one translation at the edge.

Option contracts and quotes are translated here too (``observed_option_instrument``,
``observed_option_quote``): a contract missing what the desk needs to trade it (its ticks, a
positive strike and multiplier, a known type) or a quote missing any figure the venue's
answers carry, or its instant, is not taken (``None``), never completed with a made-up one.

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

from ordergate.calendar import NyseCalendar
from ordergate.client.market import EquityQuote as UpstreamQuote
from ordergate.client.options import OptionInstrument as UpstreamInstrument
from ordergate.client.options import OptionQuote as UpstreamOptionQuote
from ordergate.sandbox.market import (
    MinTicks,
    OptionInstrument,
    OptionQuote,
    OptionType,
    Tradability,
)
from ordergate.sandbox.market._options import occ_symbol
from ordergate.sandbox.venue._equity_market import EquityQuote

__all__ = ["observed_option_instrument", "observed_option_quote", "observed_quote"]


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


def observed_option_instrument(
    upstream: UpstreamInstrument, *, calendar: NyseCalendar
) -> OptionInstrument | None:
    """``upstream`` as ``ObservedOptionPrices.list`` takes it (it expires at the regular close
    of its expiration date); ``None`` when it lacks what the desk needs to trade it."""
    ticks = upstream.min_ticks
    kinds = {kind.value for kind in OptionType}
    tradabilities = {t.value for t in Tradability}
    if (
        ticks is None
        or upstream.strike_price <= 0
        or upstream.trade_value_multiplier <= 0
        or upstream.type not in kinds
        or upstream.tradability not in tradabilities
    ):
        return None
    kind = OptionType(upstream.type)
    symbol = upstream.chain_symbol.strip().upper()
    expires_at = calendar.regular_close(upstream.expiration_date)
    return OptionInstrument(
        id=upstream.id.strip().lower(),
        chain_id=upstream.chain_id,
        chain_symbol=symbol,
        type=kind,
        strike_price=upstream.strike_price,
        expiration_date=upstream.expiration_date,
        expires_at=expires_at,
        sellout_datetime=upstream.sellout_datetime or expires_at,
        state=upstream.state,
        tradability=Tradability(upstream.tradability),
        min_ticks=MinTicks(ticks.above_tick, ticks.below_tick, ticks.cutoff_price),
        occ_symbol=occ_symbol(symbol, upstream.expiration_date, kind, upstream.strike_price),
        trade_value_multiplier=upstream.trade_value_multiplier,
        underlying_type=upstream.underlying_type or "equity",
    )


def observed_option_quote(
    upstream: UpstreamOptionQuote, *, underlying_price: Decimal
) -> OptionQuote | None:
    """``upstream`` (a ``get_option_quotes`` quote) as ``ObservedOptionPrices.observe`` takes
    it, with the underlying's price the caller read; ``None`` when it lacks its instant or
    any figure the venue's answers carry."""
    figures = (
        upstream.break_even_price,
        upstream.adjusted_mark_price,
        upstream.high_fill_rate_buy_price,
        upstream.low_fill_rate_buy_price,
        upstream.high_fill_rate_sell_price,
        upstream.low_fill_rate_sell_price,
        upstream.previous_close_price,
    )
    if (
        upstream.updated_at is None
        or upstream.previous_close_date is None
        or any(figure is None for figure in figures)
        or upstream.open_interest is None
        or upstream.volume is None
    ):
        return None
    return OptionQuote(
        instrument_id=upstream.instrument_id.strip().lower(),
        bid_price=upstream.bid_price,
        bid_size=upstream.bid_size,
        ask_price=upstream.ask_price,
        ask_size=upstream.ask_size,
        mark_price=upstream.mark_price,
        adjusted_mark_price=_known(upstream.adjusted_mark_price),
        break_even_price=_known(upstream.break_even_price),
        high_fill_rate_buy_price=_known(upstream.high_fill_rate_buy_price),
        low_fill_rate_buy_price=_known(upstream.low_fill_rate_buy_price),
        high_fill_rate_sell_price=_known(upstream.high_fill_rate_sell_price),
        low_fill_rate_sell_price=_known(upstream.low_fill_rate_sell_price),
        previous_close_price=_known(upstream.previous_close_price),
        previous_close_date=upstream.previous_close_date,
        implied_volatility=upstream.implied_volatility,
        delta=upstream.delta,
        gamma=upstream.gamma,
        theta=upstream.theta,
        vega=upstream.vega,
        rho=upstream.rho,
        open_interest=upstream.open_interest,
        volume=upstream.volume,
        chance_of_profit_long=upstream.chance_of_profit_long,
        chance_of_profit_short=upstream.chance_of_profit_short,
        underlying_price=underlying_price,
        updated_at=upstream.updated_at,
    )


def _known(figure: Decimal | None) -> Decimal:
    assert figure is not None  # checked by the caller
    return figure

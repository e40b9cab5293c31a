"""Option chains, contracts, quotes and closes as the option tools put them on the wire.

Same rules as the equity market data (``_market_wire``): canonical decimal strings, ISO 8601
UTC timestamps with microseconds and ``Z``, ``YYYY-MM-DD`` dates. Only the fields of the
captured output schemas appear (they forbid any other).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from ordergate.core import to_wire, wire_or_none, wire_time
from ordergate.sandbox.market import MinTicks, OptionChain, OptionInstrument, OptionQuote

__all__ = ["chain_wire", "instrument_wire", "option_close_wire", "option_quote_wire"]


def _ticks(ticks: MinTicks) -> dict[str, str]:
    return {
        "above_tick": to_wire(ticks.above_tick),
        "below_tick": to_wire(ticks.below_tick),
        "cutoff_price": to_wire(ticks.cutoff_price),
    }


def chain_wire(chain: OptionChain) -> dict[str, Any]:
    """One chain of ``get_option_chains``."""
    return {
        "id": chain.id,
        "symbol": chain.symbol,
        "can_open_position": chain.can_open_position,
        "cash_component": wire_or_none(chain.cash_component),
        "expiration_dates": [day.isoformat() for day in chain.expiration_dates],
        "trade_value_multiplier": to_wire(chain.trade_value_multiplier),
        "underlying_instruments": [
            {"instrument": chain.underlying_instrument_id, "symbol": chain.symbol}
        ],
        "min_ticks": _ticks(chain.min_ticks),
        "late_close_state": chain.late_close_state,
        "extended_hours_state": chain.extended_hours_state,
        "settle_on_open": chain.settle_on_open,
        "sellout_time_to_expiration": chain.sellout_time_to_expiration,
    }


def instrument_wire(contract: OptionInstrument) -> dict[str, Any]:
    """One contract of ``get_option_instruments``."""
    return {
        "id": contract.id,
        "chain_id": contract.chain_id,
        "chain_symbol": contract.chain_symbol,
        "underlying_type": contract.underlying_type,
        "expiration_date": contract.expiration_date.isoformat(),
        "sellout_datetime": wire_time(contract.sellout_datetime),
        "strike_price": to_wire(contract.strike_price),
        "type": contract.type.value,
        "state": contract.state,
        "tradability": contract.tradability.value,
        "trade_value_multiplier": to_wire(contract.trade_value_multiplier),
        "min_ticks": _ticks(contract.min_ticks),
    }


def option_quote_wire(quote: OptionQuote) -> dict[str, Any]:
    """One ``quote`` of ``get_option_quotes`` (and ``option_quotes`` item of
    ``review_option_order``); greeks are ``null`` once a contract expired."""
    return {
        "instrument_id": quote.instrument_id,
        "ask_price": to_wire(quote.ask_price),
        "ask_size": quote.ask_size,
        "bid_price": to_wire(quote.bid_price),
        "bid_size": quote.bid_size,
        "break_even_price": to_wire(quote.break_even_price),
        "adjusted_mark_price": to_wire(quote.adjusted_mark_price),
        "mark_price": to_wire(quote.mark_price),
        "high_fill_rate_buy_price": to_wire(quote.high_fill_rate_buy_price),
        "low_fill_rate_buy_price": to_wire(quote.low_fill_rate_buy_price),
        "high_fill_rate_sell_price": to_wire(quote.high_fill_rate_sell_price),
        "low_fill_rate_sell_price": to_wire(quote.low_fill_rate_sell_price),
        "previous_close_price": to_wire(quote.previous_close_price),
        "previous_close_date": quote.previous_close_date.isoformat(),
        "implied_volatility": wire_or_none(quote.implied_volatility),
        "delta": wire_or_none(quote.delta),
        "gamma": wire_or_none(quote.gamma),
        "rho": wire_or_none(quote.rho),
        "theta": wire_or_none(quote.theta),
        "vega": wire_or_none(quote.vega),
        "open_interest": quote.open_interest,
        "volume": quote.volume,
        "chance_of_profit_long": wire_or_none(quote.chance_of_profit_long),
        "chance_of_profit_short": wire_or_none(quote.chance_of_profit_short),
        "updated_at": wire_time(quote.updated_at),
    }


def option_close_wire(contract: OptionInstrument, day: date, price: Decimal) -> dict[str, Any]:
    """One ``close`` of ``get_option_quotes``: the mark at a regular close; ``symbol`` is OCC."""
    return {
        "instrument_id": contract.id,
        "symbol": contract.occ_symbol,
        "date": day.isoformat(),
        "price": to_wire(price),
        "interpolated": False,
        "source": "sandbox",
    }

"""An upstream quote as the engine's feed takes it: prices, times and the sizes given."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest

from ordergate.calendar import NyseCalendar
from ordergate.client.market import EquityQuote as UpstreamQuote
from ordergate.client.options import OptionInstrument as UpstreamInstrument
from ordergate.client.options import OptionQuote as UpstreamOptionQuote
from ordergate.core import SteppedClock
from ordergate.sandbox.engine import (
    observed_option_instrument,
    observed_option_quote,
    observed_quote,
)
from ordergate.sandbox.market import Market, OptionInstrument
from ordergate.sandbox.tools._option_wire import instrument_wire, option_quote_wire

BID_TIME = datetime(2026, 12, 1, 15, 0, 3, tzinfo=UTC)
ASK_TIME = datetime(2026, 12, 1, 15, 0, 1, tzinfo=UTC)


def _upstream(**changes: Any) -> UpstreamQuote:
    wire: dict[str, Any] = {
        "symbol": "spy",
        "last_trade_price": "600.10",
        "venue_last_trade_time": "2026-12-01T15:00:02.000000Z",
        "last_non_reg_trade_price": None,
        "venue_last_non_reg_trade_time": None,
        "adjusted_previous_close": "300.00",
        "previous_close": "600.00",
        "previous_close_date": "2026-11-30",
        "bid_price": "600.05",
        "venue_bid_time": "2026-12-01T15:00:03.000000Z",
        "ask_price": "600.15",
        "venue_ask_time": "2026-12-01T15:00:01.000000Z",
        "has_traded": True,
        "state": "active",
    }
    wire.update(changes)
    return UpstreamQuote.model_validate(wire)


def test_an_upstream_quote_is_observed_as_of_its_older_side_with_the_sizes_given() -> None:
    quote = observed_quote(_upstream(), bid_size=Decimal(100), ask_size=Decimal(200))
    assert quote is not None
    assert (quote.symbol, quote.bid, quote.ask, quote.last) == (
        "SPY",
        Decimal("600.05"),
        Decimal("600.15"),
        Decimal("600.10"),
    )
    assert (quote.bid_size, quote.ask_size) == (Decimal(100), Decimal(200))
    assert quote.at == min(BID_TIME, ASK_TIME) == ASK_TIME
    # The split-adjusted close: the one a post-split price compares with.
    assert (quote.previous_close, quote.previous_close_date) == (
        Decimal("300.00"),
        date(2026, 11, 30),
    )


@pytest.mark.parametrize("field", ["bid_price", "ask_price", "last_trade_price"])
def test_an_upstream_quote_without_a_positive_price_is_no_usable_quote(field: str) -> None:
    for value in ("0", None, ""):
        assert observed_quote(_upstream(**{field: value}), bid_size=Decimal(1),
                              ask_size=Decimal(1)) is None  # fmt: skip


def test_a_quoted_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        observed_quote(_upstream(), bid_size=Decimal(0), ask_size=Decimal(1))


# -- option contracts and quotes ---------------------------------------------------------------


def _seeded_contract() -> tuple[Market, OptionInstrument]:
    clock = SteppedClock(start=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))
    market = Market(seed=0, clock=clock)
    day = market.option_chain("AAPL").expiration_dates[0]
    return market, market.option_instruments("AAPL", expiration=day, option_type="call")[0]


def test_an_upstream_option_contract_is_taken_as_the_venue_lists_it() -> None:
    _, contract = _seeded_contract()
    upstream = UpstreamInstrument.model_validate(instrument_wire(contract))
    assert observed_option_instrument(upstream, calendar=NyseCalendar()) == contract


@pytest.mark.parametrize(
    "change",
    [{"min_ticks": None}, {"strike_price": Decimal(0)}, {"trade_value_multiplier": Decimal(0)},
     {"type": "straddle"}, {"tradability": "maybe"}],
)  # fmt: skip
def test_an_option_contract_lacking_what_the_desk_trades_on_is_not_taken(
    change: dict[str, Any],
) -> None:
    _, contract = _seeded_contract()
    upstream = UpstreamInstrument.model_validate(instrument_wire(contract)).model_copy(
        update=change
    )
    assert observed_option_instrument(upstream, calendar=NyseCalendar()) is None


def test_an_upstream_option_quote_is_taken_with_the_underlyings_price_given() -> None:
    market, contract = _seeded_contract()
    quote = market.option_quote(contract.id)
    upstream = UpstreamOptionQuote.model_validate(option_quote_wire(quote))
    assert observed_option_quote(upstream, underlying_price=quote.underlying_price) == quote
    for missing in ("updated_at", "previous_close_date", "break_even_price", "volume"):
        partial = upstream.model_copy(update={missing: None})
        assert observed_option_quote(partial, underlying_price=Decimal(1)) is None

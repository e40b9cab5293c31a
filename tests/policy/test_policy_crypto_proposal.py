"""``CryptoProposal`` refuses what the order path cannot name, naming the field; amounts from
the wire are plain decimal text; stage A terms weigh a size in units at the far side."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import CryptoOrderType, CryptoTimeInForce, Side
from ordergate.policy import (
    CryptoProposal,
    CryptoQuote,
    ProposalError,
    estimate_crypto_terms,
    parse_crypto_amount,
)
from ordergate.policy.crypto import MAX_PLACES, decimal_places

QUOTE = CryptoQuote(
    "BTC-USD", Decimal("99990.00"), Decimal("100010.00"), datetime(2026, 1, 1, tzinfo=UTC)
)


def proposal(**fields: Any) -> CryptoProposal:
    terms: dict[str, Any] = {"pair": "BTC-USD", "side": Side.BUY, "asset_quantity": Decimal("0.01")}
    terms.update(fields)
    return CryptoProposal(**terms)


def refused_field(**fields: Any) -> str:
    with pytest.raises(ProposalError) as caught:
        proposal(**fields)
    return caught.value.field


def test_a_pair_is_upper_cased_and_defaults_are_a_gtc_market_order() -> None:
    made = proposal(pair="eth-usd")
    assert (made.pair, made.order_type, made.time_in_force) == (
        "ETH-USD",
        CryptoOrderType.MARKET,
        CryptoTimeInForce.GTC,
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"pair": "BTC"}, "pair"),
        ({"pair": " BTC-USD"}, "pair"),
        ({"pair": "BTC-USD\n"}, "pair"),
        ({"pair": 7}, "pair"),
        ({"side": "buy"}, "side"),
        ({"order_type": "market"}, "order_type"),
        ({"time_in_force": "gtc"}, "time_in_force"),
        ({"asset_quantity": None}, "asset_quantity"),
        ({"quote_amount": Decimal(10)}, "asset_quantity"),
        ({"asset_quantity": Decimal(0)}, "asset_quantity"),
        ({"asset_quantity": Decimal("-1")}, "asset_quantity"),
        ({"asset_quantity": Decimal("NaN")}, "asset_quantity"),
        ({"asset_quantity": 1}, "asset_quantity"),
        ({"asset_quantity": Decimal("1E+1")}, "asset_quantity"),
        ({"asset_quantity": Decimal("0." + "0" * 18 + "1")}, "asset_quantity"),
        ({"asset_quantity": None, "quote_amount": Decimal("10.001")}, "quote_amount"),
        (
            {
                "asset_quantity": None,
                "quote_amount": Decimal(10),
                "order_type": CryptoOrderType.LIMIT,
                "limit_price": Decimal(1),
            },
            "quote_amount",
        ),
        ({"order_type": CryptoOrderType.LIMIT}, "limit_price"),
        ({"limit_price": Decimal(1)}, "limit_price"),
        ({"order_type": CryptoOrderType.STOP_LOSS}, "stop_price"),
        ({"stop_price": Decimal(1)}, "stop_price"),
        ({"account": " 123"}, "account"),
        ({"account": ""}, "account"),
    ],
)
def test_a_proposal_the_path_cannot_name_is_refused_naming_the_field(
    fields: dict[str, Any], field: str
) -> None:
    assert refused_field(**fields) == field


def test_eighteen_places_are_taken_and_a_nineteenth_is_refused() -> None:
    eighteen = Decimal("0." + "0" * 17 + "1")
    assert decimal_places(eighteen) == MAX_PLACES
    assert proposal(asset_quantity=eighteen).asset_quantity == eighteen
    assert refused_field(asset_quantity=eighteen / 10) == "asset_quantity"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.001", Decimal("0.001")),
        (".5", Decimal("0.5")),
        (3, Decimal(3)),
        (0.25, Decimal("0.25")),
        (Decimal("1.5"), Decimal("1.5")),
        (None, None),
        ("", None),
    ],
)
def test_plain_decimal_amounts_are_read_exactly(text: object, value: Decimal | None) -> None:
    assert parse_crypto_amount("asset_quantity", text) == value


@pytest.mark.parametrize(
    "text", ["1e-3", "1E+2", 1e-05, "-1", "+1", "NaN", "Infinity", "1,000", True, [1], " 1"]
)
def test_scientific_notation_and_anything_not_plain_is_refused_naming_the_field(
    text: object,
) -> None:
    with pytest.raises(ProposalError) as caught:
        parse_crypto_amount("quote_amount", text)
    assert caught.value.field == "quote_amount"


def test_a_quantity_buy_is_weighed_at_the_ask_and_a_sell_at_the_bid() -> None:
    buy = estimate_crypto_terms(proposal(), QUOTE)
    sell = estimate_crypto_terms(proposal(side=Side.SELL), QUOTE)
    assert (buy.price, buy.notional, buy.quantity) == (
        Decimal("100010.00"),
        Decimal("1000.1000"),
        Decimal("0.01"),
    )
    assert (sell.price, sell.notional) == (Decimal("99990.00"), Decimal("999.9000"))


def test_a_dollar_amount_is_converted_to_units_at_the_far_side() -> None:
    terms = estimate_crypto_terms(proposal(asset_quantity=None, quote_amount=Decimal(500)), QUOTE)
    assert terms.notional == Decimal(500)
    assert terms.quantity == Decimal(500) / Decimal("100010.00")


def test_limits_and_stops_weigh_the_dearer_of_their_price_and_the_quote() -> None:
    limit = CryptoOrderType.LIMIT
    buy = estimate_crypto_terms(proposal(order_type=limit, limit_price=Decimal(90000)), QUOTE)
    sell_low = estimate_crypto_terms(
        proposal(side=Side.SELL, order_type=limit, limit_price=Decimal(90000)), QUOTE
    )
    sell_high = estimate_crypto_terms(
        proposal(side=Side.SELL, order_type=limit, limit_price=Decimal(110000)), QUOTE
    )
    stop = estimate_crypto_terms(
        proposal(order_type=CryptoOrderType.STOP_LOSS, stop_price=Decimal(120000)), QUOTE
    )
    assert buy.price == Decimal(90000)
    assert (sell_low.price, sell_high.price) == (Decimal("99990.00"), Decimal(110000))
    assert stop.price == Decimal(120000)


def test_without_a_usable_quote_a_market_orders_dollars_are_unknown() -> None:
    empty = CryptoQuote("BTC-USD", None, Decimal(0), None)
    for quote in (None, empty):
        terms = estimate_crypto_terms(proposal(), quote)
        assert (terms.price, terms.notional, terms.quantity) == (None, None, Decimal("0.01"))
    dollars = estimate_crypto_terms(proposal(asset_quantity=None, quote_amount=Decimal(5)), None)
    assert (dollars.notional, dollars.quantity) == (Decimal(5), None)
    sell = estimate_crypto_terms(
        proposal(side=Side.SELL, order_type=CryptoOrderType.LIMIT, limit_price=Decimal(7)), None
    )
    assert sell.price == Decimal(7)
    stop = estimate_crypto_terms(
        proposal(order_type=CryptoOrderType.STOP_LOSS, stop_price=Decimal(7)), None
    )
    assert stop.price is None


def test_a_crossed_quote_says_so() -> None:
    assert CryptoQuote("BTC-USD", Decimal(2), Decimal(1), None).crossed
    assert not QUOTE.crossed
    assert not CryptoQuote("BTC-USD", None, Decimal(1), None).crossed

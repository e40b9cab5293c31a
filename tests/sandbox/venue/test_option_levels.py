"""The agentic account's type and option level, and what each lets an option order do, as an
outside client sees them through the venue's MCP endpoint on a loopback socket."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from venue_testkit import VenueClient, running_venue

from ordergate.inventory import load_inventory


@contextmanager
def _venue(account_type: str, option_level: int) -> Iterator[VenueClient]:
    with running_venue(account_type=account_type, option_level=option_level) as client:
        client.initialize()
        yield client


def _contracts(client: VenueClient, kind: str) -> list[dict[str, Any]]:
    """AAPL contracts of ``kind`` on the nearest expiry, by strike."""
    chain = client.data("get_option_chains", {"underlying_symbol": "AAPL"})["chains"][0]
    found = client.data(
        "get_option_instruments",
        {"chain_symbol": "AAPL", "expiration_dates": chain["expiration_dates"][0], "type": kind},
    )["instruments"]
    return sorted(found, key=lambda i: Decimal(i["strike_price"]))


def _leg(contract: dict[str, Any], side: str = "buy") -> dict[str, Any]:
    return {"option_id": contract["id"], "side": side, "position_effect": "open"}


def _order(client: VenueClient, *legs: dict[str, Any], **terms: str) -> dict[str, Any]:
    order = {"account_number": client.agentic_account()["account_number"], "quantity": "1"}
    order.update(terms)
    return {**order, "legs": list(legs)}


def _debit_vertical(client: VenueClient) -> dict[str, Any]:
    calls = _contracts(client, "call")
    middle = len(calls) // 2
    low, high = calls[middle], calls[middle + 1]
    return _order(client, _leg(low), _leg(high, "sell"), price="5.00", direction="debit")


@pytest.mark.parametrize(
    ("account_type", "level"), [("cash", 1), ("cash", 2), ("cash", 3), ("margin", 3)]
)
def test_the_agentic_account_reports_the_type_and_level_it_is_served_with(
    account_type: str, level: int
) -> None:
    with _venue(account_type, level) as client:
        account = client.agentic_account()
        assert (account["type"], account["option_level"]) == (
            account_type,
            f"option_level_{level}",
        )


def test_a_two_leg_spread_at_option_level_2_is_refused_naming_legs() -> None:
    with _venue("margin", 2) as client:
        error = client.error("review_option_order", _debit_vertical(client))
        assert (error["code"], error["field"]) == ("OPTION_LEVEL_INSUFFICIENT", "legs")


def test_a_two_leg_spread_at_option_level_3_on_a_margin_account_is_reviewed_and_placed() -> None:
    with _venue("margin", 3) as client:
        order = _debit_vertical(client)
        review = client.data("review_option_order", order)
        assert review["direction"] == "debit"
        placed = client.data(
            "place_option_order", {**order, "ref_id": "6f1c7a52-0b8e-4d7f-9c55-3d3f9e1d2a01"}
        )
        assert placed["order"]["state"] == "queued"
        assert len(placed["order"]["legs"]) == 2


def test_a_two_leg_spread_at_option_level_3_on_a_cash_account_is_refused() -> None:
    with _venue("cash", 3) as client:
        error = client.error("review_option_order", _debit_vertical(client))
        assert (error["code"], error["field"]) == ("ACCOUNT_TYPE_INSUFFICIENT", "account_number")
        assert "cash" in error["message"]


def test_one_leg_bought_to_open_needs_option_level_2() -> None:
    with _venue("cash", 1) as client:
        order = _order(client, _leg(_contracts(client, "call")[0]), price="1.00")
        error = client.error("review_option_order", order)
        assert (error["code"], error["field"]) == ("OPTION_LEVEL_INSUFFICIENT", "legs[0].side")
    with _venue("cash", 2) as client:
        order = _order(client, _leg(_contracts(client, "call")[0]), price="1.00")
        assert client.data("review_option_order", order)["direction"] == "debit"


def test_a_put_credit_spread_holds_its_width_not_the_short_strike() -> None:
    with _venue("margin", 3) as client:
        puts = _contracts(client, "put")
        middle = len(puts) // 2
        low, high = puts[middle - 2], puts[middle]
        order = _order(client, _leg(high, "sell"), _leg(low), price="0.01", direction="credit")
        review = client.data("review_option_order", order)
        width = Decimal(high["strike_price"]) - Decimal(low["strike_price"])
        assert review["collateral"]["cash"]["amount"] == f"{width * 100:.2f}"


def test_a_call_sold_against_a_call_expiring_first_is_naked() -> None:
    with _venue("margin", 3) as client:
        chain = client.data("get_option_chains", {"underlying_symbol": "AAPL"})["chains"][0]
        near, far = chain["expiration_dates"][0], chain["expiration_dates"][1]

        def call_on(expiry: str) -> dict[str, Any]:
            found = client.data(
                "get_option_instruments",
                {"chain_symbol": "AAPL", "expiration_dates": expiry, "type": "call"},
            )["instruments"]
            return sorted(found, key=lambda i: Decimal(i["strike_price"]))[len(found) // 2]

        order = _order(
            client,
            _leg(call_on(near)),
            _leg(call_on(far), "sell"),
            price="0.01",
            direction="credit",
        )
        error = client.error("review_option_order", order)
        assert (error["code"], error["field"]) == ("OPTION_LEVEL_INSUFFICIENT", "legs[1].side")


def test_a_four_leg_iron_condor_is_accepted_and_a_fifth_leg_is_refused() -> None:
    with _venue("margin", 3) as client:
        calls, puts = _contracts(client, "call"), _contracts(client, "put")
        c, p = len(calls) // 2, len(puts) // 2
        legs = [
            _leg(puts[p - 4]),
            _leg(puts[p - 2], "sell"),
            _leg(calls[c + 2], "sell"),
            _leg(calls[c + 4]),
        ]
        condor = _order(client, *legs, price="0.01", direction="credit")
        review = client.data("review_option_order", condor)
        widths = [
            Decimal(puts[p - 2]["strike_price"]) - Decimal(puts[p - 4]["strike_price"]),
            Decimal(calls[c + 4]["strike_price"]) - Decimal(calls[c + 2]["strike_price"]),
        ]
        assert review["collateral"]["cash"]["amount"] == f"{sum(widths) * 100:.2f}"
        fifth = _order(client, *legs, _leg(calls[c + 6]), price="0.01", direction="credit")
        error = client.error("review_option_order", fifth)
        assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "legs")


def test_the_venue_lists_every_captured_tool_and_no_tool_only_a_description_names() -> None:
    with _venue("margin", 3) as client:
        names: list[str] = []
        cursor: str | None = None
        for _ in range(20):  # 82 tools, 20 a page: bounded well past the last page
            page = client.rpc("tools/list", {"cursor": cursor} if cursor else {})["result"]
            names += [tool["name"] for tool in page["tools"]]
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert sorted(names) == sorted(load_inventory())
        for described_only in ("replace_option_order", "get_crypto_tax_lots"):
            message = client.rpc("tools/call", {"name": described_only, "arguments": {}})
            assert message["error"]["message"] == f"Unknown tool: {described_only}"


def _buying_power(client: VenueClient) -> tuple[Decimal, Decimal]:
    number = client.agentic_account()["account_number"]
    portfolio = client.data("get_portfolio", {"account_number": number})
    return Decimal(portfolio["cash"]), Decimal(portfolio["buying_power"]["buying_power"])


def test_a_filled_put_credit_spread_keeps_only_its_width_held() -> None:
    with _venue("margin", 3) as client:
        puts = _contracts(client, "put")
        quote = client.data("get_equity_quotes", {"symbols": ["AAPL"]})["results"][0]["quote"]
        spot = Decimal(quote["last_trade_price"])
        at = next(i for i, put in enumerate(puts) if Decimal(put["strike_price"]) >= spot)
        low, high = puts[at - 2], puts[at]  # the short put in the money: a marketable credit
        order = _order(client, _leg(high, "sell"), _leg(low), price="0.01", direction="credit")
        placed = client.data(
            "place_option_order", {**order, "ref_id": "0d6c1a7e-5b0f-4f59-8f4e-8f1c2b3a4d02"}
        )["order"]
        client.step(3)
        number = client.agentic_account()["account_number"]
        filled = client.data("get_option_orders", {"account_number": number})["orders"]
        assert [(o["id"], o["state"]) for o in filled] == [(placed["id"], "filled")]
        cash, buying_power = _buying_power(client)
        width = Decimal(high["strike_price"]) - Decimal(low["strike_price"])
        assert cash - buying_power == width * 100


def test_a_put_exercise_without_shares_is_refused_on_margin_even_with_allow_shorts() -> None:
    with _venue("margin", 2) as client:
        put = _contracts(client, "put")[0]
        quote = client.data("get_option_quotes", {"instrument_ids": [put["id"]]})["results"][0]
        ask = Decimal(quote["quote"]["ask_price"])
        order = _order(client, _leg(put), price=str(ask + 1))
        client.data(
            "place_option_order", {**order, "ref_id": "2b7d9f10-3c4e-4a5b-9d6e-7f8091a2b3c4"}
        )
        client.step(3)
        exercise = {
            "account_number": order["account_number"],
            "option_id": put["id"],
            "quantity": 1,
            "allow_shorts": True,
        }
        error = client.error("exercise_option", exercise)
        assert (error["code"], error["field"]) == ("INSUFFICIENT_SHARES", "quantity")
        assert "no short stock" in error["message"]


@pytest.mark.parametrize(("price", "accepted"), [("1.01", True), ("1.005", False)])
def test_a_multi_leg_net_price_is_taken_in_cents(price: str, accepted: bool) -> None:
    with _venue("margin", 3) as client:
        order = {**_debit_vertical(client), "price": price}
        result = client.call("review_option_order", order)
        assert result["isError"] is not accepted
        if not accepted:
            error = result["structuredContent"]["error"]
            assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "price")
            assert "0.01" in error["message"]


def _filled_credit_spread(client: VenueClient, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A marketable credit spread of ``kind`` filled: (its short contract, its long one)."""
    found = _contracts(client, kind)
    quote = client.data("get_equity_quotes", {"symbols": ["AAPL"]})["results"][0]["quote"]
    spot = Decimal(quote["last_trade_price"])
    at = next(i for i, contract in enumerate(found) if Decimal(contract["strike_price"]) >= spot)
    # The short leg in the money, the long one two strikes further out: a marketable credit.
    short, long = (found[at], found[at - 2]) if kind == "put" else (found[at - 1], found[at + 1])
    order = _order(client, _leg(short, "sell"), _leg(long), price="0.01", direction="credit")
    client.data("place_option_order", {**order, "ref_id": "5a3e1f2b-7c6d-4e8f-9a0b-1c2d3e4f5a06"})
    client.step(3)
    number = order["account_number"]
    orders = client.data("get_option_orders", {"account_number": number})["orders"]
    assert [o["state"] for o in orders] == ["filled"]
    return short, long


def _close(contract: dict[str, Any], side: str) -> dict[str, Any]:
    return {"option_id": contract["id"], "side": side, "position_effect": "close"}


def test_selling_a_call_spreads_long_leg_alone_is_refused_and_closing_both_is_not() -> None:
    with _venue("margin", 3) as client:
        short, long = _filled_credit_spread(client, "call")
        alone = _order(client, _close(long, "sell"), price="0.01")
        error = client.error("review_option_order", alone)
        assert (error["code"], error["field"]) == ("OPTION_LEVEL_INSUFFICIENT", "legs")
        assert "uncovered" in error["message"]
        both = _order(
            client, _close(short, "buy"), _close(long, "sell"), price="50.00", direction="debit"
        )
        assert client.data("review_option_order", both)["direction"] == "debit"


def test_selling_a_put_spreads_long_leg_alone_holds_the_short_puts_strike() -> None:
    with _venue("margin", 3) as client:
        short, long = _filled_credit_spread(client, "put")
        alone = _order(client, _close(long, "sell"), price="0.01")
        review = client.data("review_option_order", alone)
        width = Decimal(short["strike_price"]) - Decimal(long["strike_price"])
        added = Decimal(short["strike_price"]) * 100 - width * 100
        assert review["collateral"]["cash"]["amount"] == f"{added:.2f}"

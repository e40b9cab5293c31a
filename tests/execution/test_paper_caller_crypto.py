"""``PaperCaller``'s crypto: the engine's crypto desk answers the crypto order tools on the
paper book, on crypto quotes read from the upstream (a real sandbox venue on loopback): one
``get_crypto_quotes`` for the pairs a call needs, reused within ``QUOTE_REUSE``, slipped
against the trader; a pair listed on first sight from the upstream's ``get_currency_pairs``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from client_testkit import rhs_account_number
from guard_kit import desk
from pydantic import BaseModel

from ordergate.client import BusinessError, Robinhood
from ordergate.client.crypto import (
    CryptoOrder,
    CryptoOrdersPage,
    CryptoPositionsPage,
    CryptoPreview,
    CryptoQuotes,
    CurrencyPair,
)
from ordergate.inventory import load_inventory
from ordergate.sandbox.market import Tradability
from ordergate.venues.paper import PaperCaller
from ordergate.venues.paper._caller import pair_of

pytestmark = pytest.mark.anyio
BOUND_S = 10
D = Decimal


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Counting:
    """The real upstream, with the tools it was asked for counted."""

    def __init__(self, upstream: Robinhood) -> None:
        self.upstream = upstream
        self.asked: Counter[str] = Counter()

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        self.asked[name] += 1
        return await self.upstream.call(name, arguments)


def crypto(rhs: str, **terms: Any) -> dict[str, Any]:
    return {"rhs_account_number": rhs, "symbol": "BTC-USD", "side": "buy", "type": "market",
            **terms}  # fmt: skip


async def _upstream_quote(rh: Robinhood) -> dict[str, Any]:
    data = await rh.call("get_crypto_quotes", {"symbols": ["BTC-USD"]})
    quote: dict[str, Any] = data["results"][0]
    return quote


async def test_a_paper_crypto_buy_fills_on_the_upstreams_ask_in_the_paper_book(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        rhs = rhs_account_number(d.venue)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        with anyio.fail_after(BOUND_S):
            ask = Decimal((await _upstream_quote(d.rh))["ask_price"])
            preview = await caller.call("preview_crypto_order", crypto(rhs, quantity="0.1"))
            placed = await caller.call("place_crypto_order", crypto(rhs, quantity="0.1"))
        assert Decimal(preview["quote"]["ask_price"]) == ask
        assert upstream.asked["get_currency_pairs"] == 1  # listed on first sight
        assert upstream.asked["get_crypto_quotes"] == 1  # reused within the window
        assert "place_crypto_order" not in upstream.asked  # nothing reaches a market
        d.step(2)
        with anyio.fail_after(BOUND_S):
            ask = Decimal((await _upstream_quote(d.rh))["ask_price"])
            orders = await caller.call(
                "get_crypto_orders", {"rhs_account_number": rhs, "order_id": placed["order"]["id"]}
            )
            positions = await caller.call("get_crypto_positions", {"rhs_account_number": rhs})
        filled = orders["orders"][0]
        assert filled["state"] == "filled"
        assert Decimal(filled["average_price"]) == ask
        assert [(p["currency_code"], p["quantity"]) for p in positions["positions"]] == [
            ("BTC", "0.1")
        ]
        assert upstream.asked["get_currency_pairs"] == 1
        upstream_orders = await d.rh.call("get_crypto_orders", {"rhs_account_number": rhs})
        assert upstream_orders["orders"] == []


async def test_slippage_moves_the_crypto_quote_read_and_the_price_filled_alike(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        rhs = rhs_account_number(d.venue)
        caller = PaperCaller(
            d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(100_000), slippage_bps=25
        )
        with anyio.fail_after(BOUND_S):
            upstream = await _upstream_quote(d.rh)
            preview = await caller.call("preview_crypto_order", crypto(rhs, quantity="0.1"))
            quotes = await caller.call("get_crypto_quotes", {"symbols": ["BTC-USD"]})
        seen = quotes["results"][0]
        ask, bid = Decimal(upstream["ask_price"]), Decimal(upstream["bid_price"])
        assert Decimal(seen["ask_price"]) == (ask * Decimal("1.0025")).quantize(
            Decimal("0.01"), "ROUND_CEILING"
        )
        assert Decimal(seen["bid_price"]) == (bid * Decimal("0.9975")).quantize(
            Decimal("0.01"), "ROUND_FLOOR"
        )
        assert Decimal(preview["quote"]["ask_price"]) == Decimal(seen["ask_price"])
        assert Decimal(preview["quote"]["bid_price"]) == Decimal(seen["bid_price"])


async def test_a_pair_the_upstream_does_not_list_is_refused_by_the_engine(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        rhs = rhs_account_number(d.venue)
        caller = PaperCaller(d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(1000))
        with pytest.raises(BusinessError) as caught, anyio.fail_after(BOUND_S):
            await caller.call("preview_crypto_order", crypto(rhs, symbol="ZZZ-USD", quantity="1"))
        assert (caught.value.code, caught.value.field) == ("NOT_FOUND", "symbol")
        assert caller.crypto_prices.pair("ZZZ-USD") is None


_READ_AS: dict[str, tuple[type[BaseModel], str | None]] = {
    "preview_crypto_order": (CryptoPreview, None),
    "place_crypto_order": (CryptoOrder, "order"),
    "cancel_crypto_order": (CryptoOrder, "order"),
    "get_crypto_orders": (CryptoOrdersPage, None),
    "get_crypto_positions": (CryptoPositionsPage, None),
    "get_crypto_quotes": (CryptoQuotes, None),
}


def _valid(name: str, answer: Any) -> None:
    # The capture holds no output schema for the crypto tools: an answer is checked by the
    # typed client's strict models, what the live lane reads it with.
    assert load_inventory()[name].output_schema is None
    model, key = _READ_AS[name]
    model.model_validate(answer if key is None else answer[key])


async def test_every_paper_crypto_answer_reads_as_the_live_lane_reads_the_venues(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        rhs = rhs_account_number(d.venue)
        caller = PaperCaller(
            d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(100_000), slippage_bps=10
        )
        with anyio.fail_after(BOUND_S):
            bid = Decimal((await _upstream_quote(d.rh))["bid_price"])
            answers: list[tuple[str, Any]] = [
                ("preview_crypto_order", await caller.call(
                    "preview_crypto_order", crypto(rhs, dollar_amount="100.00"))),
                ("place_crypto_order", await caller.call(
                    "place_crypto_order", crypto(rhs, quantity="0.01"))),
            ]  # fmt: skip
            low = str((bid * Decimal("0.9")).quantize(Decimal("0.01")))
            resting = await caller.call(
                "place_crypto_order", crypto(rhs, type="limit", quantity="0.01", limit_price=low)
            )
            answers.append(("place_crypto_order", resting))
            d.step(2)
            answers += [
                ("cancel_crypto_order", await caller.call(
                    "cancel_crypto_order",
                    {"rhs_account_number": rhs, "order_id": resting["order"]["id"]})),
                ("get_crypto_orders", await caller.call(
                    "get_crypto_orders", {"rhs_account_number": rhs})),
                ("get_crypto_positions", await caller.call(
                    "get_crypto_positions", {"rhs_account_number": rhs})),
                ("get_crypto_quotes", await caller.call(
                    "get_crypto_quotes", {"symbols": ["BTC-USD"]})),
            ]  # fmt: skip
        for name, answer in answers:
            _valid(name, answer)
        states = {o["state"] for o in answers[4][1]["orders"]}
        assert states == {"filled", "canceled"}
        assert answers[5][1]["positions"]


class FailingQuotes(Counting):
    """The real upstream, except that its crypto quotes are refused."""

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == "get_crypto_quotes":
            raise BusinessError("no quotes now", tool=name, code="UNAVAILABLE")
        return await super().call(name, arguments)


async def test_an_upstream_without_crypto_quotes_leaves_the_feed_and_nothing_is_priced(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        rhs = rhs_account_number(d.venue)
        caller = PaperCaller(FailingQuotes(d.rh), d.ledger.engine, clock=d.clock, cash=D(1000))
        with pytest.raises(BusinessError) as caught, anyio.fail_after(BOUND_S):
            await caller.call("preview_crypto_order", crypto(rhs, quantity="0.01"))
        assert (caught.value.code, caught.value.field) == ("UNAVAILABLE", "symbol")
        assert caller.crypto_prices.pair("BTC-USD") is not None  # listed, never quoted


def _pair(**changes: Any) -> CurrencyPair:
    listed: dict[str, Any] = {
        "id": "p", "symbol": "btc-usd", "tradability": "tradable",
        "asset_currency": {"id": "a", "code": "BTC", "increment": "0.00000001"},
        "quote_currency": {"id": "q", "code": "USD", "increment": "0.01"},
        "min_order_size": "0.000001",
    }  # fmt: skip
    listed.update(changes)
    return CurrencyPair.model_validate(listed)


def test_a_pair_is_listed_with_the_upstreams_increments_and_never_made_up() -> None:
    listed = pair_of(_pair())
    assert listed is not None
    assert (listed.symbol, listed.asset_increment, listed.quote_increment) == (
        "BTC-USD", D("0.00000001"), D("0.01")
    )  # fmt: skip
    assert listed.tradability is Tradability.TRADABLE
    assert pair_of(_pair(display_only=True)).tradability is Tradability.UNTRADABLE  # type: ignore[union-attr]
    no_step = {"id": "a", "code": "BTC"}
    assert pair_of(_pair(asset_currency=no_step)) is None


async def test_a_crypto_quotes_answer_the_caller_cannot_read_passes_as_it_came(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        caller = PaperCaller(d.rh, d.ledger.engine, clock=d.clock, cash=D(1), slippage_bps=10)
        for odd in ("text", {"results": "none"}, {"results": ["x", {"symbol": "ZZZ-USD"}]}):
            assert caller._slipped_crypto(odd) == odd
            caller._observe_crypto(odd, d.clock.now())
        assert caller.crypto_prices.pair("ZZZ-USD") is None

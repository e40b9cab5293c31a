"""Response models read wire booleans strictly: only a JSON ``true``/``false`` is a flag."""

from __future__ import annotations

import gc
import importlib
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from client_testkit import ScriptedCaller, StubCaller

from ordergate.client._errors import ResponseParseError
from ordergate.client._models import WireModel, parse_model
from ordergate.client._orders import placed_model
from ordergate.client.accounts import Account, AccountsClient
from ordergate.client.crypto import CryptoOrder
from ordergate.client.equity import EquityOrder, EquityReview
from ordergate.client.market import MarketClient
from ordergate.client.options import OptionOrder

FAMILIES = (
    "accounts", "advanced", "alerts", "crypto", "equity", "market", "options", "research",
    "scanner", "watchlists",
)  # fmt: skip
NOT_BOOLEANS = ["true", "false", 1, 0, "yes", None]


def _account(agentic_allowed: Any) -> dict[str, Any]:
    return {"account_number": "1", "type": "cash", "agentic_allowed": agentic_allowed}


def _every_response_model() -> Iterator[type[WireModel]]:
    for family in FAMILIES:
        importlib.import_module(f"ordergate.client.{family}")
    pending = list(WireModel.__subclasses__())
    while pending:
        model = pending.pop()
        pending.extend(model.__subclasses__())
        yield model


def _lax_booleans(schema: Any, path: str = "") -> Iterator[str]:
    if isinstance(schema, dict):
        if schema.get("type") == "bool" and not schema.get("strict"):
            yield path
        for key, value in schema.items():
            yield from _lax_booleans(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _lax_booleans(value, f"{path}[{index}]")


@pytest.mark.anyio
@pytest.mark.parametrize("flag", NOT_BOOLEANS)
async def test_a_flag_that_is_not_a_json_boolean_is_a_parse_error_naming_it(flag: Any) -> None:
    caller = ScriptedCaller({"get_accounts": {"accounts": [_account(flag)]}})
    with pytest.raises(ResponseParseError) as raised:
        await AccountsClient(caller).accounts()
    assert (raised.value.field, raised.value.tool) == ("agentic_allowed", "get_accounts")


@pytest.mark.parametrize("flag", ["true", 1])
def test_an_optional_nested_flag_is_as_strict_as_a_required_one(flag: Any) -> None:
    review = {"symbol": "A", "side": "buy", "type": "market", "order_checks": {"passed": flag}}
    with pytest.raises(ResponseParseError) as raised:
        parse_model(EquityReview, review, tool="review_equity_order")
    assert raised.value.field == "order_checks.passed"


@pytest.mark.anyio
@pytest.mark.parametrize("flag", ["true", 1])
async def test_the_quotes_hot_path_reads_flags_as_strictly(flag: Any) -> None:
    quote = {
        "symbol": "A", "last_trade_price": "1", "venue_last_trade_time": "2026-12-01T15:00:00Z",
        "adjusted_previous_close": "1", "previous_close": "1", "bid_price": "1",
        "venue_bid_time": "2026-12-01T15:00:00Z", "ask_price": "1",
        "venue_ask_time": "2026-12-01T15:00:00Z", "has_traded": flag, "state": "active",
    }  # fmt: skip
    with pytest.raises(ResponseParseError) as raised:
        await MarketClient(StubCaller({"results": [{"quote": quote}]})).quotes(["A"])
    assert raised.value.field == "results[0].quote.has_traded"


@pytest.mark.parametrize("flag", [True, False])
def test_json_booleans_read_as_themselves(flag: bool) -> None:
    assert parse_model(Account, _account(flag), tool="get_accounts").agentic_allowed is flag


def test_no_response_model_reads_a_flag_laxly() -> None:
    models = list(_every_response_model())
    assert Account in models and len(models) > 100
    lax = {model.__name__: list(_lax_booleans(model.__pydantic_core_schema__)) for model in models}
    assert {name: paths for name, paths in lax.items() if paths} == {}


@pytest.mark.parametrize("order_model", [OptionOrder, EquityOrder, CryptoOrder])
def test_a_place_answer_model_outlives_a_garbage_collection(order_model: type[WireModel]) -> None:
    # Pydantic holds a parametrised model only weakly: dropped at a collection, the next
    # place would rebuild its schema on the event loop.
    built = weakref.ref(placed_model(order_model))
    gc.collect()
    assert built() is not None
    assert placed_model(order_model) is built()

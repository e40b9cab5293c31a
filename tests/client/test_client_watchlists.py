"""The typed watchlist tools: against the venue over loopback, and against a stub caller."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import anyio
import pytest
from client_testkit import StubCaller, json_rpc_caller, refusal_loc
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.watchlists import (
    CreateWatchlistRequest,
    OptionItemsRequest,
    PositionType,
    UpdateWatchlistRequest,
    WatchlistItemsRequest,
    WatchlistsClient,
)

# -- over the wire ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_new_list_takes_items_of_every_kind_and_gives_them_back_priced(
    sandbox: VenueClient,
) -> None:
    pair_id = sandbox.data("search", {"query": "BTC", "asset_type": "crypto"})["currency_pairs"][0]
    spx = sandbox.data("get_indexes", {"symbols": "SPX"})["results"][0]
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = WatchlistsClient(caller)
            created = await client.create(
                "Tech", display_description="Chips and software", icon_emoji="💻"
            )
            added = await client.add(
                created.id,
                symbols=["AAPL", "MSFT", "NOPE"],
                currency_pair_ids=[pair_id["id"]],
                index_ids=[spx["id"]],
            )
            again = await client.add(created.id, symbols=["AAPL"])
            contents = await client.items(created.id)
            removed = await client.remove(created.id, symbols=["MSFT", "TSLA"])
            renamed = await client.update(created.id, display_name="Tech and coins")
            mine = await client.lists()
    assert (created.display_name, created.owner_type, created.item_count) == ("Tech", "custom", 0)
    assert added.not_found == ["NOPE"] and added.item_count == 4
    assert {item.object_type for item in added.added} == {"instrument", "currency_pair", "index"}
    assert again.already_in_list == ["AAPL"] and again.added == []
    assert [item.symbol for item in contents.items] == ["AAPL", "MSFT", "BTC-USD", "SPX"]
    apple = contents.items[0]
    assert isinstance(apple.price, Decimal) and apple.price > 0
    assert removed.removed == ["MSFT"] and removed.not_in_list == ["TSLA"]
    assert removed.item_count == 3
    assert renamed.display_name == "Tech and coins"
    assert renamed.display_description == "Chips and software"
    assert created.id in {watchlist.id for watchlist in mine}


@pytest.mark.anyio
async def test_curated_lists_are_followed_not_edited(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = WatchlistsClient(caller)
            popular = await client.popular()
            curated = next(w for w in popular if w.display_name == "Most Popular")
            followed = await client.follow(curated.id)
            listed = await client.lists()
            members = await client.items(curated.id)
            with pytest.raises(BusinessError) as raised:
                await client.add(curated.id, symbols=["AAPL"])
            unfollowed = await client.unfollow(curated.id)
            after = await client.lists()
    assert all(w.owner_type == "robinhood" for w in popular)
    assert followed.following is True and unfollowed.following is False
    assert curated.id in {w.id for w in listed} and curated.id not in {w.id for w in after}
    assert members.owner_type == "robinhood" and members.items
    assert (raised.value.code, raised.value.field) == ("PERMISSION_DENIED", "list_id")


@pytest.mark.anyio
async def test_option_contracts_are_watched_by_id_and_position(sandbox: VenueClient) -> None:
    instruments = sandbox.data("get_option_instruments", {"chain_symbol": "AAPL", "type": "call"})
    option_id = instruments["instruments"][0]["id"]
    unknown = "00000000-0000-4000-8000-000000000000"
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = WatchlistsClient(caller)
            added = await client.add_option([option_id, unknown])
            short = await client.add_option([option_id], position_type=PositionType.SHORT)
            watched = await client.option_list()
            removed = await client.remove_option([option_id], position_type="short")
            left = await client.option_list()
    assert added.not_found == [unknown] and short.item_count == 2
    (row,) = added.added
    assert (row.option_id, row.chain_symbol, row.type) == (option_id, "AAPL", "call")
    assert isinstance(row.strike_price, Decimal)
    assert {(w.option_id, w.position_type) for w in watched} == {
        (option_id, "long"),
        (option_id, "short"),
    }
    assert removed.removed == [option_id] and removed.item_count == 1
    assert [(w.option_id, w.position_type) for w in left] == [(option_id, "long")]


@pytest.mark.anyio
async def test_an_unknown_list_is_not_found(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await WatchlistsClient(caller).items("no-such-list")
    assert (raised.value.code, raised.value.tool) == ("NOT_FOUND", "get_watchlist_items")


# -- requests --------------------------------------------------------------------------------


def test_watchlist_requests_send_only_given_fields() -> None:
    assert CreateWatchlistRequest(display_name="A").arguments() == {"display_name": "A"}
    assert UpdateWatchlistRequest(list_id="l", icon_emoji="🚀").arguments() == {
        "list_id": "l",
        "icon_emoji": "🚀",
    }
    assert WatchlistItemsRequest(list_id="l", index_ids=["i"]).arguments() == {
        "list_id": "l",
        "index_ids": ["i"],
    }
    assert OptionItemsRequest.model_validate(
        {"option_ids": ["o"], "position_type": "short"}
    ).arguments() == {"option_ids": ["o"], "position_type": "short"}


@pytest.mark.parametrize(
    ("model", "fields", "loc"),
    [
        (CreateWatchlistRequest, {}, ("display_name",)),
        (CreateWatchlistRequest, {"display_name": "A", "title": "B"}, ("title",)),
        (UpdateWatchlistRequest, {"list_id": "l"}, ("display_name",)),
        (WatchlistItemsRequest, {"list_id": "l"}, ("symbols",)),
        (WatchlistItemsRequest, {"list_id": "l", "symbols": []}, ("symbols",)),
        (WatchlistItemsRequest, {"list_id": "l", "symbols": "AAPL"}, ("symbols",)),
        (OptionItemsRequest, {"option_ids": []}, ("option_ids",)),
        (OptionItemsRequest, {"option_ids": ["o"], "position_type": "flat"}, ("position_type",)),
    ],
)
def test_watchlist_requests_refuse_naming_the_field(
    model: type[Any], fields: dict[str, Any], loc: tuple[str, ...]
) -> None:
    assert refusal_loc(model, fields) == loc


@pytest.mark.anyio
async def test_methods_send_exact_wire_arguments() -> None:
    stub = StubCaller({"watchlist": {"id": "l"}, "watchlists": None, "items": None})
    client = WatchlistsClient(stub)
    assert await client.lists() == []
    assert await client.option_list() == []
    await client.follow("l")
    await client.unfollow("l")
    await client.update("l", display_description="")
    assert stub.calls == [
        ("get_watchlists", {}),
        ("get_option_watchlist", {}),
        ("follow_watchlist", {"list_id": "l"}),
        ("unfollow_watchlist", {"list_id": "l"}),
        ("update_watchlist", {"list_id": "l", "display_description": ""}),
    ]


# -- responses -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_item_prices_follow_the_decimal_rules() -> None:
    stub = StubCaller(
        {
            "list_id": "l",
            "items": [
                {"id": "1", "price": 12, "previous_close": "", "one_day_percent_change": "-1.5"},
                {"id": "2", "price": "n/a"},
            ],
        }
    )
    with pytest.raises(ResponseParseError) as raised:
        await WatchlistsClient(stub).items("l")
    assert (raised.value.field, raised.value.tool) == ("items[1].price", "get_watchlist_items")
    stub.answers[0]["items"].pop()
    (item,) = (await WatchlistsClient(stub).items("l")).items
    assert (item.price, item.previous_close) == (Decimal(12), None)
    assert item.one_day_percent_change == Decimal("-1.5")


@pytest.mark.anyio
async def test_answers_that_are_not_the_expected_shape_are_parse_errors() -> None:
    with pytest.raises(ResponseParseError) as raised:
        await WatchlistsClient(StubCaller({"watchlists": {"id": "x"}})).popular()
    assert raised.value.field == "watchlists"
    with pytest.raises(ResponseParseError) as raised:
        await WatchlistsClient(StubCaller(["not", "an", "object"])).create("A")
    assert raised.value.field == "data"
    with pytest.raises(ResponseParseError) as raised:
        await WatchlistsClient(StubCaller({"items": [{"id": "o", "mark_price": []}]})).option_list()
    assert raised.value.field == "mark_price"

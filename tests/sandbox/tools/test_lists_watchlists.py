"""Watchlist tools: the user's lists, curated lists and the option watchlist."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from lists_testkit import Harness, build

from ordergate.sandbox.tools.watchlists import MAX_ITEMS_PER_CALL, MAX_LISTS


@pytest.fixture
def h() -> Harness:
    return build()


def _popular(h: Harness, name: str) -> str:
    lists = h.call("get_popular_watchlists")["watchlists"]
    found: str = next(w["id"] for w in lists if w["display_name"] == name)
    return found


def _option_ids(h: Harness, count: int) -> list[str]:
    contracts = h.venue.market.option_instruments("AAPL")
    return [c.id for c in contracts[:count]]


def test_a_new_user_has_one_default_list_and_it_starts_empty(h: Harness) -> None:
    lists = h.call("get_watchlists")["watchlists"]
    assert [w["display_name"] for w in lists] == ["My First List"]
    assert lists[0]["owner_type"] == "custom"
    assert h.call("get_watchlist_items", list_id=lists[0]["id"])["items"] == []


def test_created_list_reads_back_with_the_items_added_and_their_prices(h: Harness) -> None:
    created = h.call(
        "create_watchlist", display_name=" Chips ", display_description="semis", icon_emoji="🔌"
    )["watchlist"]
    assert created["display_name"] == "Chips" and created["icon_emoji"] == "🔌"
    btc = h.venue.market.universe.crypto_pair("BTC").id
    spx = h.venue.market.universe.index("SPX").instrument_id
    added = h.call(
        "add_to_watchlist",
        list_id=created["id"],
        symbols=["nvda", "AMD", "NVDA", "NOPE"],
        currency_pair_ids=[btc, "not-a-pair"],
        index_ids=[spx, "not-an-index"],
    )
    assert [a["symbol"] for a in added["added"]] == ["NVDA", "AMD", "BTC-USD", "SPX"]
    assert added["not_found"] == ["NOPE", "not-a-pair", "not-an-index"]
    assert added["item_count"] == 4
    items = h.call("get_watchlist_items", list_id=created["id"])["items"]
    assert [(i["symbol"], i["object_type"]) for i in items] == [
        ("NVDA", "instrument"),
        ("AMD", "instrument"),
        ("BTC-USD", "currency_pair"),
        ("SPX", "index"),
    ]
    nvda_quote = h.venue.market.quote("NVDA")
    assert items[0]["price"] == str(nvda_quote.last_trade_price)
    assert items[0]["previous_close"] == str(nvda_quote.previous_close)
    assert items[2]["price"] == str(h.venue.market.crypto_quote("BTC-USD").mark_price)
    assert items[3]["price"] == str(h.venue.market.index_quote("SPX").value)
    summary = next(w for w in h.call("get_watchlists")["watchlists"] if w["id"] == created["id"])
    assert summary["item_count"] == 4


def test_adding_an_item_twice_keeps_one_copy_and_says_so(h: Harness) -> None:
    list_id = h.call("get_watchlists")["watchlists"][0]["id"]
    h.call("add_to_watchlist", list_id=list_id, symbols=["AAPL"])
    again = h.call("add_to_watchlist", list_id=list_id, symbols=["AAPL"])
    assert again["added"] == [] and again["already_in_list"] == ["AAPL"]
    assert again["item_count"] == 1


def test_removed_items_are_gone_and_absent_ones_are_reported(h: Harness) -> None:
    list_id = h.call("get_watchlists")["watchlists"][0]["id"]
    h.call("add_to_watchlist", list_id=list_id, symbols=["AAPL", "MSFT"])
    removed = h.call("remove_from_watchlist", list_id=list_id, symbols=["MSFT", "TSLA", "NOPE"])
    assert removed["removed"] == ["MSFT"]
    assert removed["not_in_list"] == ["TSLA"]
    assert removed["not_found"] == ["NOPE"]
    items = h.call("get_watchlist_items", list_id=list_id)["items"]
    assert [i["symbol"] for i in items] == ["AAPL"]


def test_update_changes_only_the_fields_given(h: Harness) -> None:
    list_id = h.call("create_watchlist", display_name="Old")["watchlist"]["id"]
    h.step(minutes=1)
    updated = h.call("update_watchlist", list_id=list_id, display_name="New")["watchlist"]
    assert updated["display_name"] == "New"
    assert updated["icon_emoji"] == "📋"
    assert updated["updated_at"] > updated["created_at"]
    updated = h.call(
        "update_watchlist", list_id=list_id, display_description="why", icon_emoji="⭐"
    )["watchlist"]
    assert (updated["display_name"], updated["display_description"]) == ("New", "why")
    assert updated["icon_emoji"] == "⭐"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"display_name": "   "}, "display_name"),
        ({"display_name": "x" * 51}, "display_name"),
        ({"display_name": "ok", "display_description": "d" * 281}, "display_description"),
        ({"display_name": "ok", "icon_emoji": "A"}, "icon_emoji"),
    ],
)
def test_create_watchlist_refuses_bad_fields_by_name(
    h: Harness, args: dict[str, str], field: str
) -> None:
    error = h.fail("create_watchlist", **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_create_watchlist_needs_a_name(h: Harness) -> None:
    assert h.fail("create_watchlist")["field"] == "display_name"


def test_a_user_cannot_have_more_than_fifty_lists(h: Harness) -> None:
    for n in range(MAX_LISTS - 1):
        h.call("create_watchlist", display_name=f"L{n}")
    error = h.fail("create_watchlist", display_name="one too many")
    assert error["code"] == "INVALID_ARGUMENT"


def test_update_watchlist_refuses_nothing_to_change_and_an_empty_name(h: Harness) -> None:
    list_id = h.call("get_watchlists")["watchlists"][0]["id"]
    assert h.fail("update_watchlist", list_id=list_id)["code"] == "INVALID_ARGUMENT"
    assert h.fail("update_watchlist", list_id=list_id, display_name=" ")["field"] == "display_name"


def test_write_ops_on_unknown_list_ids_are_not_found(h: Harness) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    for name, extra in (
        ("update_watchlist", {"display_name": "x"}),
        ("add_to_watchlist", {"symbols": ["AAPL"]}),
        ("remove_from_watchlist", {"symbols": ["AAPL"]}),
        ("follow_watchlist", {}),
        ("unfollow_watchlist", {}),
        ("get_watchlist_items", {}),
    ):
        error = h.fail(name, list_id=unknown, **extra)
        assert (error["code"], error["field"]) == ("NOT_FOUND", "list_id"), name


def test_curated_lists_cannot_be_edited(h: Harness) -> None:
    curated = _popular(h, "ETFs")
    error = h.fail("add_to_watchlist", list_id=curated, symbols=["AAPL"])
    assert error["code"] == "PERMISSION_DENIED"
    assert h.fail("update_watchlist", list_id=curated, display_name="x")["code"] == (
        "PERMISSION_DENIED"
    )


def test_add_to_watchlist_needs_items_and_caps_them_per_call(h: Harness) -> None:
    list_id = h.call("get_watchlists")["watchlists"][0]["id"]
    assert h.fail("add_to_watchlist", list_id=list_id)["field"] == "symbols"
    assert h.fail("add_to_watchlist", list_id=list_id, symbols=[" "])["field"] == "symbols"
    many = [f"S{n}" for n in range(MAX_ITEMS_PER_CALL + 1)]
    assert h.fail("add_to_watchlist", list_id=list_id, symbols=many)["code"] == "INVALID_ARGUMENT"


def test_a_list_holds_at_most_two_hundred_items(h: Harness) -> None:
    list_id = h.call("get_watchlists")["watchlists"][0]["id"]
    desk = h.desk
    filler = h.call("add_to_watchlist", list_id=list_id, symbols=["AAPL"])["added"][0]
    item = desk.watchlists[list_id].items[0]
    desk.watchlists[list_id].items = [item] * 200
    assert filler["symbol"] == "AAPL"
    assert h.fail("add_to_watchlist", list_id=list_id, symbols=["MSFT"])["code"] == (
        "INVALID_ARGUMENT"
    )


def test_curated_lists_are_listed_and_readable(h: Harness) -> None:
    popular = h.call("get_popular_watchlists")["watchlists"]
    names = [w["display_name"] for w in popular]
    assert names == [
        "Most Popular",
        "Daily Movers",
        "Technology",
        "ETFs",
        "Crypto",
        "Market Indexes",
    ]
    assert all(w["owner_type"] == "robinhood" and w["following"] is False for w in popular)
    etfs = h.call("get_watchlist_items", list_id=_popular(h, "ETFs"))
    assert {i["symbol"] for i in etfs["items"]} >= {"SPY", "QQQ"}
    movers = h.call("get_watchlist_items", list_id=_popular(h, "Daily Movers"))["items"]
    changes = [abs(Decimal(i["one_day_percent_change"])) for i in movers]
    assert changes == sorted(changes, reverse=True)
    tech = h.call("get_watchlist_items", list_id=_popular(h, "Technology"))["items"]
    assert "AAPL" in {i["symbol"] for i in tech} and "SPY" not in {i["symbol"] for i in tech}


def test_following_a_curated_list_shows_it_among_the_users_lists(h: Harness) -> None:
    crypto = _popular(h, "Crypto")
    followed = h.call("follow_watchlist", list_id=crypto)["watchlist"]
    assert followed["following"] is True
    h.call("follow_watchlist", list_id=crypto)
    lists = h.call("get_watchlists")["watchlists"]
    assert [w["display_name"] for w in lists] == ["My First List", "Crypto"]
    unfollowed = h.call("unfollow_watchlist", list_id=crypto)["watchlist"]
    assert unfollowed["following"] is False
    h.call("unfollow_watchlist", list_id=crypto)
    assert len(h.call("get_watchlists")["watchlists"]) == 1


def test_own_lists_cannot_be_followed_or_unfollowed(h: Harness) -> None:
    own = h.call("get_watchlists")["watchlists"][0]["id"]
    assert h.fail("follow_watchlist", list_id=own)["field"] == "list_id"
    assert h.fail("unfollow_watchlist", list_id=own)["field"] == "list_id"


def test_watched_options_read_back_with_their_contract_terms(h: Harness) -> None:
    first, second = _option_ids(h, 2)
    added = h.call(
        "add_option_to_watchlist", option_ids=[first, second, "nope"], position_type="short"
    )
    assert [a["option_id"] for a in added["added"]] == [first, second]
    assert added["not_found"] == ["nope"]
    again = h.call("add_option_to_watchlist", option_ids=[first], position_type="SHORT")
    assert again["already_in_list"] == [first]
    long_view = h.call("add_option_to_watchlist", option_ids=[first])
    assert long_view["item_count"] == 3
    items = h.call("get_option_watchlist")["items"]
    contract = h.venue.market.option_instrument(first)
    row = items[0]
    assert row["chain_symbol"] == "AAPL"
    assert row["strike_price"] == str(contract.strike_price)
    assert date.fromisoformat(row["expiration_date"]) == contract.expiration_date
    assert row["mark_price"] == str(h.venue.market.option_quote(first).mark_price)
    assert [(i["option_id"], i["position_type"]) for i in items] == [
        (first, "short"),
        (second, "short"),
        (first, "long"),
    ]
    removed = h.call("remove_option_from_watchlist", option_ids=[first, second])
    assert removed["removed"] == [first] and removed["not_in_list"] == [second]
    removed = h.call("remove_option_from_watchlist", option_ids=[first], position_type="short")
    assert removed["item_count"] == 1


@pytest.mark.parametrize(
    ("name", "args", "field"),
    [
        ("add_option_to_watchlist", {"option_ids": []}, "option_ids"),
        (
            "add_option_to_watchlist",
            {"option_ids": ["a"] * 1 + [str(n) for n in range(20)]},
            "option_ids",
        ),
        (
            "add_option_to_watchlist",
            {"option_ids": ["a"], "position_type": "flat"},
            "position_type",
        ),
        ("remove_option_from_watchlist", {"option_ids": None}, "option_ids"),
        (
            "remove_option_from_watchlist",
            {"option_ids": ["a"], "position_type": "x"},
            "position_type",
        ),
    ],
)
def test_option_watchlist_refuses_bad_arguments(
    h: Harness, name: str, args: dict[str, object], field: str
) -> None:
    error = h.fail(name, **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_the_option_watchlist_holds_at_most_a_hundred_contracts(h: Harness) -> None:
    ids = _option_ids(h, 101)
    for start in range(0, 100, 20):
        h.call("add_option_to_watchlist", option_ids=ids[start : start + 20])
    error = h.fail("add_option_to_watchlist", option_ids=[ids[100]])
    assert error["code"] == "INVALID_ARGUMENT"


def test_schema_rejects_unknown_arguments_to_get_watchlists(h: Harness) -> None:
    error = h.fail("get_watchlists", extra=1)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "extra")
    assert h.fail("get_popular_watchlists", x=1)["code"] == "INVALID_ARGUMENT"
    assert h.fail("get_option_watchlist", x=1)["code"] == "INVALID_ARGUMENT"

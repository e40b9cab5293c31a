"""Alert tools and the lists desk's price-crossing alerts."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from lists_testkit import Harness, build

from ordergate.sandbox.tools.alerts import MAX_ALERTS


@pytest.fixture
def h() -> Harness:
    return build()


def _price(h: Harness, symbol: str) -> Decimal:
    return h.venue.market.quote(symbol).last_trade_price


def _above(h: Harness, symbol: str, pct: str) -> str:
    return str((_price(h, symbol) * (1 + Decimal(pct) / 100)).quantize(Decimal("0.01")))


def test_price_alert_fires_once_when_a_shock_carries_the_price_across(h: Harness) -> None:
    threshold = _above(h, "AAPL", "5")
    alert = h.call("create_alert", symbol="aapl", condition_type="price_above", threshold=threshold)
    alert_id = alert["alert"]["id"]
    assert alert["alert"]["state"] == "active"
    h.step(seconds=1)
    assert h.call("get_alert_log")["entries"] == []
    h.venue.market.shock("AAPL", Decimal(10))
    h.step(seconds=1)
    log = h.call("get_alert_log")
    assert log["unread_count"] == 1
    (entry,) = log["entries"]
    assert entry["alert_id"] == alert_id
    assert entry["symbol"] == "AAPL"
    assert Decimal(entry["triggered_price"]) >= Decimal(threshold)
    assert entry["triggered_price"] == str(_price(h, "AAPL"))
    assert entry["read"] is False
    fired = h.call("get_alerts")["alerts"][0]
    assert (fired["enabled"], fired["state"], fired["trigger_count"]) == (False, "triggered", 1)
    h.venue.market.shock("AAPL", Decimal(-20))
    h.step(seconds=1)
    h.venue.market.shock("AAPL", Decimal(30))
    h.step(seconds=1)
    assert len(h.call("get_alert_log")["entries"]) == 1


def test_price_below_alert_fires_on_a_fall_and_re_arms_when_enabled(h: Harness) -> None:
    threshold = _above(h, "MSFT", "-5")
    alert_id = h.call(
        "create_alert", symbol="MSFT", condition_type="price_below", threshold=threshold
    )["alert"]["id"]
    h.venue.market.shock("MSFT", Decimal(-10))
    h.step(seconds=1)
    assert len(h.call("get_alert_log")["entries"]) == 1
    h.venue.market.shock("MSFT", Decimal(20))
    h.step(seconds=1)
    rearmed = h.call("update_alert", alert_id=alert_id, enabled=True)["alert"]
    assert rearmed["state"] == "active"
    h.venue.market.shock("MSFT", Decimal(-25))
    h.step(seconds=1)
    assert len(h.call("get_alert_log")["entries"]) == 2


def test_percent_change_alert_fires_on_the_days_move(h: Harness) -> None:
    h.call("create_alert", symbol="TSLA", condition_type="percent_change_above", threshold="15")
    h.call("create_alert", symbol="TSLA", condition_type="percent_change_below", threshold="-15")
    h.venue.market.shock("TSLA", Decimal(25))
    h.step(seconds=1)
    (entry,) = h.call("get_alert_log")["entries"]
    assert entry["condition_type"] == "percent_change_above"
    assert Decimal(entry["triggered_value"]) > 15
    assert "%" in entry["message"]


def test_crypto_alerts_watch_the_pairs_mark(h: Harness) -> None:
    mark = h.venue.market.crypto_quote("BTC-USD").mark_price
    created = h.call(
        "create_alert",
        symbol="BTC",
        asset_class="crypto",
        condition_type="price_below",
        threshold=str((mark * Decimal("0.9")).quantize(Decimal(1))),
    )["alert"]
    assert created["symbol"] == "BTC-USD"
    h.venue.market.shock("BTC-USD", Decimal(-20))
    h.step(seconds=1)
    log = h.call("get_alert_log", asset_class="crypto")["entries"]
    assert [e["symbol"] for e in log] == ["BTC-USD"]
    assert h.call("get_alert_log", asset_class="equity")["entries"] == []
    assert [a["symbol"] for a in h.call("get_alerts", symbol="BTC")["alerts"]] == ["BTC-USD"]


def test_indicator_alerts_are_kept_but_never_fire(h: Harness) -> None:
    created = h.call(
        "create_alert",
        symbol="AAPL",
        condition_type="rsi_below",
        threshold="30",
        indicator={"interval_secs": 86400, "period": 14},
    )["alert"]
    assert created["indicator"] == {"interval_secs": 86400, "period": 14}
    macd = h.call(
        "create_alert",
        symbol="AAPL",
        condition_type="macd_cross_above",
        indicator={"interval_secs": 3600, "fast_period": 12, "slow_period": 26, "signal_period": 9},
    )["alert"]
    assert macd["threshold"] is None
    moving = h.call(
        "create_alert",
        symbol="AAPL",
        condition_type="moving_average_cross_above",
        indicator={"interval_secs": 300, "period": 50},
    )["alert"]
    assert moving["indicator"]["ma_type"] == "sma"
    bands = h.call(
        "create_alert",
        symbol="AAPL",
        condition_type="bollinger_cross_below",
        indicator={"interval_secs": 900, "period": 20, "std_dev": 2},
    )["alert"]
    assert bands["indicator"]["std_dev"] == "2"
    h.venue.market.shock("AAPL", Decimal(-50))
    h.step(seconds=1)
    assert h.call("get_alert_log")["entries"] == []


_EMA = {"interval_secs": 60, "period": 10, "ma_type": "ema"}


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"condition_type": "price_sideways", "threshold": "1"}, "condition_type"),
        ({"condition_type": "price_above"}, "threshold"),
        ({"condition_type": "price_above", "threshold": "abc"}, "threshold"),
        ({"condition_type": "price_above", "threshold": "-1"}, "threshold"),
        ({"condition_type": "percent_change_above", "threshold": "-100"}, "threshold"),
        ({"condition_type": "price_above", "threshold": "1", "indicator": _EMA}, "indicator"),
        ({"condition_type": "price_above", "threshold": "1", "asset_class": "bond"}, "asset_class"),
        ({"condition_type": "rsi_above", "threshold": "100", "indicator": _EMA}, "threshold"),
        (
            {"condition_type": "moving_average_cross_above", "threshold": "5", "indicator": _EMA},
            "threshold",
        ),
        ({"condition_type": "moving_average_cross_above"}, "indicator"),
        (
            {"condition_type": "moving_average_cross_above", "indicator": {"interval_secs": 60}},
            "indicator.period",
        ),
        (
            {"condition_type": "rsi_above", "threshold": "70", "indicator": {**_EMA}},
            "indicator.ma_type",
        ),
        (
            {
                "condition_type": "moving_average_cross_above",
                "indicator": {**_EMA, "interval_secs": 7},
            },
            "indicator.interval_secs",
        ),
        (
            {"condition_type": "moving_average_cross_above", "indicator": {**_EMA, "period": 1}},
            "indicator.period",
        ),
        (
            {
                "condition_type": "moving_average_cross_above",
                "indicator": {**_EMA, "ma_type": "wma"},
            },
            "indicator.ma_type",
        ),
        (
            {
                "condition_type": "macd_cross_below",
                "indicator": {
                    "interval_secs": 60,
                    "fast_period": 30,
                    "slow_period": 26,
                    "signal_period": 9,
                },
            },
            "indicator.fast_period",
        ),
        (
            {
                "condition_type": "bollinger_cross_above",
                "indicator": {"interval_secs": 60, "period": 20, "std_dev": 9},
            },
            "indicator.std_dev",
        ),
    ],
)
def test_create_alert_refuses_rules_the_schema_cannot_express(
    h: Harness, args: dict[str, Any], field: str
) -> None:
    error = h.fail("create_alert", symbol="AAPL", **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_alerts_on_unlisted_symbols_are_refused_as_not_found(h: Harness) -> None:
    error = h.fail("create_alert", symbol="NOPE", condition_type="price_above", threshold="1")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "symbol")
    error = h.fail(
        "create_alert",
        symbol="NOPE",
        asset_class="crypto",
        condition_type="price_above",
        threshold="1",
    )
    assert error["code"] == "NOT_FOUND"


def test_a_user_has_at_most_a_hundred_alerts(h: Harness) -> None:
    for _ in range(MAX_ALERTS):
        h.call("create_alert", symbol="F", condition_type="price_above", threshold="1000")
    error = h.fail("create_alert", symbol="F", condition_type="price_above", threshold="1000")
    assert error["code"] == "INVALID_ARGUMENT"


def test_get_alerts_filters_and_pages(h: Harness) -> None:
    for _ in range(55):
        h.call("create_alert", symbol="KO", condition_type="price_above", threshold="500")
    h.call("create_alert", symbol="PEP", condition_type="price_above", threshold="500")
    first = h.call("get_alerts", symbol="KO")
    assert len(first["alerts"]) == 50 and first["next_cursor"]
    second = h.call("get_alerts", symbol="KO", cursor=first["next_cursor"])
    assert len(second["alerts"]) == 5 and second["next_cursor"] is None
    assert h.fail("get_alerts", symbol="PEP", cursor=first["next_cursor"])["field"] == "cursor"
    assert h.fail("get_alerts", cursor="%%%")["field"] == "cursor"
    assert len(h.call("get_alerts", asset_class="equity")["alerts"]) == 50
    assert h.call("get_alerts", asset_class="crypto")["alerts"] == []
    assert h.fail("get_alerts", asset_class="fx")["field"] == "asset_class"


def test_update_alert_changes_condition_and_threshold(h: Harness) -> None:
    alert_id = h.call(
        "create_alert", symbol="AAPL", condition_type="price_above", threshold="1000"
    )["alert"]["id"]
    updated = h.call("update_alert", alert_id=alert_id, threshold="2000")["alert"]
    assert updated["threshold"] == "2000" and updated["condition_type"] == "price_above"
    updated = h.call(
        "update_alert", alert_id=alert_id, condition_type="percent_change_below", threshold="-3"
    )["alert"]
    assert (updated["condition_type"], updated["threshold"]) == ("percent_change_below", "-3")
    disabled = h.call("update_alert", alert_id=alert_id, enabled=False)["alert"]
    assert disabled["state"] == "disabled"
    updated = h.call(
        "update_alert",
        alert_id=alert_id,
        condition_type="rsi_above",
        threshold="70",
        indicator={"interval_secs": 60, "period": 14},
    )["alert"]
    assert updated["indicator"] == {"interval_secs": 60, "period": 14}
    kept = h.call("update_alert", alert_id=alert_id, threshold="75")["alert"]
    assert kept["indicator"] == {"interval_secs": 60, "period": 14}


def test_update_alert_refuses_nothing_to_change_bad_rules_and_unknown_ids(h: Harness) -> None:
    alert_id = h.call(
        "create_alert", symbol="AAPL", condition_type="price_above", threshold="1000"
    )["alert"]["id"]
    assert h.fail("update_alert", alert_id=alert_id)["field"] == "alert_id"
    assert h.fail("update_alert", alert_id=alert_id, enabled=None)["field"] == "alert_id"
    error = h.fail("update_alert", alert_id=alert_id, condition_type="macd_cross_above")
    assert error["field"] == "indicator"
    error = h.fail("update_alert", alert_id="00000000-0000-4000-8000-000000000000", enabled=True)
    assert (error["code"], error["field"]) == ("NOT_FOUND", "alert_id")


def test_delete_alert_asks_for_confirmation_first(h: Harness) -> None:
    alert_id = h.call(
        "create_alert", symbol="AAPL", condition_type="price_above", threshold="1000"
    )["alert"]["id"]
    asked = h.call("delete_alert", alert_id=alert_id)
    assert (asked["deleted"], asked["confirmation_required"]) == (False, True)
    assert len(h.call("get_alerts")["alerts"]) == 1
    done = h.call("delete_alert", alert_id=alert_id, confirm=True)
    assert done["deleted"] is True
    assert h.call("get_alerts")["alerts"] == []
    assert h.fail("delete_alert", alert_id=alert_id, confirm=True)["code"] == "NOT_FOUND"


def _fire(h: Harness, symbols: list[str]) -> None:
    for symbol in symbols:
        h.call("create_alert", symbol=symbol, condition_type="percent_change_above", threshold="40")
    for symbol in symbols:
        h.venue.market.shock(symbol, Decimal(60))
        h.step(minutes=1)
        h.venue.sync()


def test_alert_log_pages_filters_by_time_and_marks_read(h: Harness) -> None:
    _fire(h, ["AAPL", "MSFT", "NVDA"])
    log = h.call("get_alert_log", limit=2)
    assert [e["symbol"] for e in log["entries"]] == ["NVDA", "MSFT"]
    rest = h.call("get_alert_log", limit=2, cursor=log["next_cursor"])
    assert [e["symbol"] for e in rest["entries"]] == ["AAPL"] and rest["next_cursor"] is None
    msft_at = log["entries"][1]["triggered_at"]
    since = h.call("get_alert_log", since=msft_at)["entries"]
    assert [e["symbol"] for e in since] == ["NVDA", "MSFT"]
    marked = h.call("mark_alerts_read", alert_log_ids=[log["entries"][0]["id"]])
    assert marked == {"marked_read": 1, "unread_count": 2}
    marked = h.call("mark_alerts_read", all_through=msft_at)
    assert marked == {"marked_read": 2, "unread_count": 0}
    entries = h.call("get_alert_log")["entries"]
    assert all(e["read"] and e["read_at"] for e in entries)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "alert_log_ids"),
        ({"alert_log_ids": ["x"], "all_through": "2026-12-01T00:00:00Z"}, "alert_log_ids"),
        ({"all_through": "yesterday"}, "all_through"),
    ],
)
def test_mark_alerts_read_takes_exactly_one_selector(
    h: Harness, args: dict[str, Any], field: str
) -> None:
    error = h.fail("mark_alerts_read", **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_marking_an_unknown_log_entry_is_not_found(h: Harness) -> None:
    error = h.fail("mark_alerts_read", alert_log_ids=["00000000-0000-4000-8000-000000000000"])
    assert (error["code"], error["field"]) == ("NOT_FOUND", "alert_log_ids")


@pytest.mark.parametrize(
    ("args", "field"),
    [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"since": "soon"}, "since")],
)
def test_get_alert_log_refuses_bad_limits_and_times(
    h: Harness, args: dict[str, Any], field: str
) -> None:
    assert h.fail("get_alert_log", **args)["field"] == field

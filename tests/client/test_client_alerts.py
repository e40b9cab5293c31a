"""The typed alert tools: against the venue over loopback, and against a stub caller."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import anyio
import pytest
from client_testkit import StubCaller, json_rpc_caller, refusal_loc
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.alerts import (
    AlertAssetClass,
    AlertCondition,
    AlertIndicator,
    AlertLogRequest,
    AlertsClient,
    AlertsRequest,
    CreateAlertRequest,
    DeleteAlertRequest,
    MarkAlertsReadRequest,
    UpdateAlertRequest,
)

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def _last_price(sandbox: VenueClient, symbol: str) -> Decimal:
    quote = sandbox.data("get_equity_quotes", {"symbols": [symbol]})["results"][0]["quote"]
    return Decimal(quote["last_trade_price"])


# -- over the wire ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_price_alert_fires_into_the_log_and_is_marked_read(sandbox: VenueClient) -> None:
    threshold = (_last_price(sandbox, "AAPL") * Decimal("1.05")).quantize(Decimal("0.01"))
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = AlertsClient(caller)
            alert = await client.create("AAPL", AlertCondition.PRICE_ABOVE, threshold=threshold)
            assert (alert.enabled, alert.threshold, alert.trigger_count) == (True, threshold, 0)
            sandbox.admin("shock", {"symbol": "AAPL", "pct": "10"})
            sandbox.step(60)
            log = await client.log(asset_class="equity", limit=10)
            (entry,) = [e for e in log.entries if e.alert_id == alert.id]
            fired = [a async for a in client.iter_alerts(symbol="AAPL")]
            marked = await client.mark_read(alert_log_ids=[entry.id])
            after = await client.log(since=entry.triggered_at)
    assert entry.triggered_price is not None and entry.triggered_price >= threshold
    assert entry.threshold == threshold and entry.read is False
    assert log.unread_count is not None and log.unread_count >= 1
    (mine,) = [a for a in fired if a.id == alert.id]
    assert (mine.enabled, mine.trigger_count) == (False, 1)
    assert marked.marked_read == 1
    assert [e.read for e in after.entries if e.id == entry.id] == [True]


@pytest.mark.anyio
async def test_alerts_are_updated_listed_by_page_and_deleted_only_when_confirmed(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = AlertsClient(caller)
            rsi = await client.create(
                "MSFT",
                "rsi_below",
                threshold=30,
                asset_class=AlertAssetClass.EQUITY,
                indicator=AlertIndicator(interval_secs=3600, period=14),
            )
            cross = await client.create(
                "BTC-USD",
                AlertCondition.BOLLINGER_CROSS_ABOVE,
                asset_class="crypto",
                indicator=AlertIndicator(interval_secs=86400, period=20, std_dev=2),
            )
            updated = await client.update(rsi.id, threshold="25.5", enabled=False)
            page = await client.alerts(asset_class="crypto")
            asked = await client.delete(cross.id)
            deleted = await client.delete(cross.id, confirm=True)
            remaining = [a.id async for a in client.iter_alerts()]
            everything_read = await client.mark_read(all_through=NOW.replace(year=2030))
    assert rsi.indicator == {"interval_secs": 3600, "period": 14}
    assert cross.indicator is not None and cross.indicator["std_dev"] == "2"
    assert (updated.threshold, updated.enabled) == (Decimal("25.5"), False)
    assert [a.id for a in page.alerts] == [cross.id] and page.next_cursor is None
    assert (asked.deleted, asked.confirmation_required) == (False, True)
    assert deleted.deleted is True and deleted.alert is not None
    assert cross.id not in remaining and rsi.id in remaining
    assert everything_read.unread_count == 0


@pytest.mark.anyio
async def test_an_unknown_alert_is_not_found(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await AlertsClient(caller).update("no-such-alert", enabled=True)
    assert (raised.value.code, raised.value.field) == ("NOT_FOUND", "alert_id")


# -- requests --------------------------------------------------------------------------------


def test_alert_requests_send_only_given_fields_with_decimals_as_text() -> None:
    assert CreateAlertRequest(
        symbol="AAPL", condition_type="price_below", threshold=Decimal("150.50")
    ).arguments() == {"symbol": "AAPL", "condition_type": "price_below", "threshold": "150.50"}
    assert CreateAlertRequest(
        symbol="AAPL",
        condition_type=AlertCondition.MACD_CROSS_ABOVE,
        indicator=AlertIndicator(interval_secs=300, fast_period=12, slow_period=26),
    ).arguments() == {
        "symbol": "AAPL",
        "condition_type": "macd_cross_above",
        "indicator": {"interval_secs": 300, "fast_period": 12, "slow_period": 26},
    }
    assert UpdateAlertRequest(alert_id="a", enabled=False).arguments() == {
        "alert_id": "a",
        "enabled": False,
    }
    assert DeleteAlertRequest(alert_id="a").arguments() == {"alert_id": "a"}
    assert AlertsRequest(cursor="c").arguments() == {"cursor": "c"}
    assert AlertLogRequest(since=NOW, limit=5).arguments() == {
        "since": "2026-12-01T15:00:00Z",
        "limit": 5,
    }
    assert MarkAlertsReadRequest(all_through=NOW).arguments() == {
        "all_through": "2026-12-01T15:00:00Z"
    }


def test_a_condition_the_client_does_not_know_is_left_to_the_venue() -> None:
    request = CreateAlertRequest(symbol="A", condition_type="volume_above", threshold=5)
    assert request.arguments()["threshold"] == "5"
    assert UpdateAlertRequest(alert_id="a", condition_type="volume_above").arguments() == {
        "alert_id": "a",
        "condition_type": "volume_above",
    }


PRICE = {"symbol": "A", "condition_type": "price_above"}
HOURLY = {"interval_secs": 3600}


@pytest.mark.parametrize(
    ("model", "fields", "loc"),
    [
        (CreateAlertRequest, PRICE, ("threshold",)),
        (CreateAlertRequest, {**PRICE, "threshold": 1.5}, ("threshold",)),
        (CreateAlertRequest, {**PRICE, "threshold": "x"}, ("threshold",)),
        (CreateAlertRequest, {**PRICE, "threshold": " "}, ("threshold",)),
        (CreateAlertRequest, {**PRICE, "threshold": 1, "indicator": HOURLY}, ("indicator",)),
        (CreateAlertRequest, {**PRICE, "threshold": 1, "asset_class": "bond"}, ("asset_class",)),
        (CreateAlertRequest, {**PRICE, "symbol": None, "threshold": 1}, ("symbol",)),
        (
            CreateAlertRequest,
            {"symbol": "A", "condition_type": "rsi_above", "threshold": 70},
            ("indicator",),
        ),
        (
            CreateAlertRequest,
            {**PRICE, "condition_type": "macd_cross_below", "threshold": 1, "indicator": HOURLY},
            ("threshold",),
        ),
        (UpdateAlertRequest, {"alert_id": "a"}, ("alert_id",)),
        (
            UpdateAlertRequest,
            {"alert_id": "a", "condition_type": "price_below", "indicator": HOURLY},
            ("indicator",),
        ),
        (
            UpdateAlertRequest,
            {"alert_id": "a", "condition_type": "macd_cross_above", "threshold": 2},
            ("threshold",),
        ),
        (AlertIndicator, {"period": 14}, ("interval_secs",)),
        (AlertIndicator, {**HOURLY, "std_dev": Decimal("2.5")}, ("std_dev",)),
        (AlertIndicator, {**HOURLY, "period": 2**31}, ("period",)),
        (AlertLogRequest, {"since": datetime(2026, 12, 1)}, ("since",)),
        (AlertLogRequest, {"limit": True}, ("limit",)),
        (DeleteAlertRequest, {"alert_id": "a", "confirm": "yes"}, ("confirm",)),
        (MarkAlertsReadRequest, {}, ("alert_log_ids",)),
        (MarkAlertsReadRequest, {"alert_log_ids": ["x"], "all_through": NOW}, ("alert_log_ids",)),
    ],
)
def test_alert_requests_refuse_naming_the_field(
    model: type[Any], fields: dict[str, Any], loc: tuple[str, ...]
) -> None:
    assert refusal_loc(model, fields) == loc


# -- responses -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_log_amounts_follow_the_decimal_rules_and_pages_walk_to_the_end() -> None:
    stub = StubCaller(
        {
            "entries": [{"id": "1", "triggered_price": 101, "threshold": "100", "read": False}],
            "next_cursor": "p2",
            "unread_count": 2,
        },
        {"entries": [{"id": "2", "triggered_price": "", "threshold": None}], "next_cursor": ""},
    )
    entries = [entry async for entry in AlertsClient(stub).iter_log(limit=1)]
    assert [(e.id, e.triggered_price, e.threshold) for e in entries] == [
        ("1", Decimal(101), Decimal(100)),
        ("2", None, None),
    ]
    assert stub.calls == [
        ("get_alert_log", {"limit": 1}),
        ("get_alert_log", {"limit": 1, "cursor": "p2"}),
    ]


@pytest.mark.anyio
async def test_an_unparseable_threshold_is_a_parse_error_naming_it() -> None:
    stub = StubCaller({"alert": {"id": "a", "threshold": "about 100"}})
    with pytest.raises(ResponseParseError) as raised:
        await AlertsClient(stub).update("a", enabled=True)
    assert (raised.value.field, raised.value.tool) == ("threshold", "update_alert")
    with pytest.raises(ResponseParseError) as raised:
        await AlertsClient(StubCaller({"alerts": [{"id": "a", "threshold": []}]})).alerts()
    assert raised.value.field == "alerts[0].threshold"

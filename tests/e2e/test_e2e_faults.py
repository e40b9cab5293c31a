"""The fault knobs tests use to make the venue misbehave on purpose."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import httpx2
import pytest
from venue_testkit import parse_sse, running_venue

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.mark.req("sandbox.faults")
def test_http_error_knob_fails_exactly_the_next_n_requests() -> None:
    with running_venue() as client:
        client.faults(http_errors=2, http_error_status=502)
        assert client.post(PING).status_code == 502
        assert client.post(PING).status_code == 502
        assert client.post(PING).status_code == 200


@pytest.mark.req("sandbox.faults")
def test_drop_after_processes_the_call_then_loses_the_answer() -> None:
    with running_venue() as client:
        account = client.agentic_account()["account_number"]
        client.faults(drop_after=1)
        with pytest.raises(httpx2.TransportError):
            client.call(
                "place_equity_order",
                {
                    "account_number": account,
                    "symbol": "AAPL",
                    "side": "buy",
                    "type": "market",
                    "quantity": "1",
                    "ref_id": "2f1d7d0e-4a8b-4c59-9d35-6a1de0a4b111",
                },
            )
        orders = client.data("get_equity_orders", {"account_number": account})["orders"]
        assert [o["ref_id"] for o in orders] == ["2f1d7d0e-4a8b-4c59-9d35-6a1de0a4b111"]


@pytest.mark.req("sandbox.faults")
def test_malformed_sse_knob_cuts_the_event_short() -> None:
    with running_venue(framing="sse") as client:
        client.faults(malformed_sse=1)
        broken = client.post(PING)
        assert broken.status_code == 200
        assert not broken.text.endswith("\n\n")
        with pytest.raises(ValueError):
            parse_sse(broken.text)
        assert parse_sse(client.post(PING).text)["result"] == {}


@pytest.mark.req("sandbox.faults")
def test_expired_tokens_knob_makes_every_current_token_answer_401() -> None:
    with running_venue() as client:
        assert client.admin("tokens", {"expire_access_tokens": True})["expired"] >= 1
        response = client.post(PING)
        assert response.status_code == 401
        assert 'error="invalid_token"' in response.headers["www-authenticate"]


@pytest.mark.req("sandbox.faults")
def test_access_tokens_expire_on_the_venue_clock() -> None:
    with running_venue(access_token_ttl=timedelta(hours=1)) as client:
        assert client.post(PING).status_code == 200
        client.step(3601)
        assert client.post(PING).status_code == 401


@pytest.mark.req("sandbox.faults")
def test_rate_limit_answers_rate_limited_past_the_configured_calls_per_second() -> None:
    with running_venue() as client:
        client.faults(rate_limit_per_s=3)
        results = [client.call("get_accounts") for _ in range(4)]
        assert [r["isError"] for r in results] == [False, False, False, True]
        assert results[3]["structuredContent"]["error"]["code"] == "RATE_LIMITED"
        client.step(1)
        assert client.call("get_accounts")["isError"] is False


@pytest.mark.req("sandbox.faults")
def test_added_latency_still_answers() -> None:
    with running_venue() as client:
        client.faults(latency_ms=20)
        assert client.rpc("ping")["result"] == {}


@pytest.mark.req("sandbox.faults")
def test_unknown_or_bad_knobs_are_refused_naming_the_knob() -> None:
    with running_venue() as client:
        response = client.http.post(f"{client.base_url}/_sandbox/faults", json={"latency": 5})
        assert response.status_code == 400
        assert response.json()["error"]["field"] == "latency"
        response = client.http.post(
            f"{client.base_url}/_sandbox/faults", json={"http_error_status": 200}
        )
        assert response.json()["error"]["field"] == "http_error_status"


@pytest.mark.req("sandbox.faults")
def test_unlisted_tools_leave_tools_list_and_a_call_to_one_is_an_unknown_tool() -> None:
    with running_venue(page_size=5) as client:

        def listed() -> list[str]:
            names: list[str] = []
            cursor: str | None = None
            while True:
                page = client.rpc("tools/list", {} if cursor is None else {"cursor": cursor})
                names += [tool["name"] for tool in page["result"]["tools"]]
                cursor = page["result"].get("nextCursor")
                if cursor is None:
                    return names

        everything = listed()
        state = client.faults(unlisted_tools=["place_crypto_order", "cancel_crypto_order"])
        fewer = listed()
        answer = client.rpc("tools/call", {"name": "place_crypto_order", "arguments": {}})
        client.faults(unlisted_tools=[])
        again = listed()
        bad = client.http.post(f"{client.base_url}/_sandbox/faults", json={"unlisted_tools": "x"})
    assert state["faults"]["unlisted_tools"] == ["cancel_crypto_order", "place_crypto_order"]
    assert "place_crypto_order" in everything and again == everything
    assert fewer == [
        n for n in everything if n not in ("place_crypto_order", "cancel_crypto_order")
    ]
    assert "error" in answer and "place_crypto_order" in answer["error"]["message"]
    assert bad.json()["error"]["field"] == "unlisted_tools"


@pytest.mark.req("sandbox.faults")
def test_price_shock_moves_the_quote() -> None:
    with running_venue() as client:
        before = client.data("get_equity_quotes", {"symbols": ["MSFT"]})["results"][0]["quote"]
        client.admin("shock", {"symbol": "MSFT", "pct": "-10"})
        client.step(1)
        after = client.data("get_equity_quotes", {"symbols": ["MSFT"]})["results"][0]["quote"]
        ratio = Decimal(after["last_trade_price"]) / Decimal(before["last_trade_price"])
        assert Decimal("0.85") < ratio < Decimal("0.95")


def test_admin_clock_refuses_to_run_backwards_naming_the_field() -> None:
    with running_venue() as client:
        response = client.http.post(
            f"{client.base_url}/_sandbox/clock", json={"advance_seconds": -5}
        )
        assert response.status_code == 400
        assert response.json()["error"]["field"] == "advance_seconds"


@pytest.mark.req("sandbox.faults")
def test_quote_lag_answers_the_symbols_quote_that_many_seconds_behind_the_venue_clock() -> None:
    with running_venue() as client:
        account = client.agentic_account()["account_number"]
        now = client.admin("state")["now"]
        state = client.faults(quote_lag_s={"spy": 16})
        quotes = client.data("get_equity_quotes", {"symbols": ["SPY", "MSFT"]})["results"]
        review = client.data(
            "review_equity_order",
            {
                "account_number": account,
                "symbol": "SPY",
                "side": "buy",
                "type": "market",
                "quantity": "1",
            },
        )["quote_data"]
        client.faults(quote_lag_s={"SPY": 0})
        after = client.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
    instant = datetime.fromisoformat(now)
    spy, msft = quotes[0]["quote"], quotes[1]["quote"]
    assert state["faults"]["quote_lag_s"] == {"SPY": 16}
    for stale in (spy, review):
        for stamp in ("venue_bid_time", "venue_ask_time"):
            assert instant - datetime.fromisoformat(stale[stamp]) == timedelta(seconds=16)
    assert datetime.fromisoformat(msft["venue_bid_time"]) == instant
    assert datetime.fromisoformat(after["venue_bid_time"]) == instant


@pytest.mark.req("sandbox.faults")
@pytest.mark.parametrize(
    ("lags", "field"),
    [
        ([16], "quote_lag_s"),
        ({"": 16}, "quote_lag_s"),
        ({"SPY": -1}, "quote_lag_s.SPY"),
        ({"SPY": "16"}, "quote_lag_s.SPY"),
        ({"SPY": True}, "quote_lag_s.SPY"),
    ],
)
def test_a_quote_lag_that_is_not_symbols_to_whole_seconds_is_refused_naming_the_field(
    lags: object, field: str
) -> None:
    with running_venue() as client:
        bad = client.http.post(f"{client.base_url}/_sandbox/faults", json={"quote_lag_s": lags})
        state = client.admin("state")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == field
    assert state["faults"]["quote_lag_s"] == {}

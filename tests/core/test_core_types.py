"""Wire enums, the error tree and masked secrets."""

from __future__ import annotations

from ordergate.core import (
    ConfigError,
    DecimalFieldError,
    MarketHours,
    OrdergateError,
    OrderState,
    OrderType,
    PlacedAgent,
    Secret,
    Side,
    TimeInForce,
    ToolError,
)


def test_enum_values_are_robinhoods_wire_values() -> None:
    assert [s.value for s in Side] == ["buy", "sell"]
    assert [t.value for t in OrderType] == ["market", "limit", "stop_market", "stop_limit"]
    assert [t.value for t in TimeInForce] == ["gfd", "gtc"]
    assert [m.value for m in MarketHours] == ["regular_hours", "extended_hours", "all_day_hours"]
    assert {a.value for a in PlacedAgent} == {"user", "agentic", "recurring", "drip"}
    assert OrderState("partially_filled") is OrderState.PARTIALLY_FILLED


def test_order_type_knows_which_prices_it_needs() -> None:
    assert OrderType.LIMIT.needs_limit_price and not OrderType.LIMIT.needs_stop_price
    assert OrderType.STOP_LIMIT.needs_limit_price and OrderType.STOP_LIMIT.needs_stop_price
    assert OrderType.STOP_MARKET.needs_stop_price and not OrderType.MARKET.needs_limit_price


def test_terminal_states_are_exactly_the_ones_that_never_change_again() -> None:
    terminal = {s for s in OrderState if s.is_terminal}
    assert terminal == {
        OrderState.FILLED,
        OrderState.CANCELLED,
        OrderState.REJECTED,
        OrderState.FAILED,
        OrderState.VOIDED,
        OrderState.PARTIALLY_FILLED_REST_CANCELLED,
    }


def test_every_error_is_rooted_in_ordergate_error_and_carries_a_code() -> None:
    for error in (
        DecimalFieldError("price", "x"),
        ConfigError("port", "bad"),
        ToolError("failed", tool="get_accounts", code="upstream"),
    ):
        assert isinstance(error, OrdergateError)
        assert error.code
    tool_error = ToolError("failed", tool="get_accounts", code="upstream")
    assert (tool_error.tool, tool_error.code) == ("get_accounts", "upstream")
    assert ConfigError("port", "bad").key == "port"


def test_secret_never_shows_its_value() -> None:
    secret = Secret("tok_live_abc")
    assert "tok_live_abc" not in repr(secret)
    assert "tok_live_abc" not in str(secret)
    assert "tok_live_abc" not in f"{secret!r} {secret}"
    assert secret.reveal() == "tok_live_abc"
    assert secret == Secret("tok_live_abc")
    assert secret != Secret("other")
    assert secret.__eq__("tok_live_abc") is NotImplemented
    assert hash(secret) == hash(Secret("tok_live_abc"))
    assert bool(secret) and not bool(Secret(""))

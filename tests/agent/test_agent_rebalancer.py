"""The rebalancer's plan from a snapshot: bands, minimums, sells first, cash and caps."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from ordergate.agent import RebalanceConfig, Rebalancer, Snapshot, session_signal
from ordergate.core import Side
from ordergate.policy import Position, Quote

AT = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
D = Decimal


def snapshot(
    positions: dict[str, tuple[str, str]] | None,
    *,
    equity: str | None = "1000",
    cash: str = "1000",
    buying_power: str = "1000",
    prices: dict[str, str] | None = None,
) -> Snapshot:
    prices = prices if prices is not None else {"SPY": "100", "VTI": "50", "OLD": "10"}
    return Snapshot(
        signal=session_signal(AT),
        equity=None if equity is None else D(equity),
        cash=D(cash),
        buying_power=D(buying_power),
        positions=None
        if positions is None
        else {s: Position(D(q), D(v)) for s, (q, v) in positions.items()},
        quotes={s: Quote(s, D(p), D(p), D(p), AT) for s, p in prices.items()},
        open_orders=0,
    )


def rebalancer(max_order: str = "1000", **targets: str) -> Rebalancer:
    config = RebalanceConfig(
        targets={s: D(w) for s, w in (targets or {"SPY": "50", "VTI": "30"}).items()},
        band_pct=D(5),
        min_trade_usd=D(5),
    )
    return Rebalancer(config, max_order_usd=D(max_order))


def test_from_cash_it_buys_each_target_in_dollars() -> None:
    plan = rebalancer().plan(snapshot({}))
    assert [(i.side, i.symbol, i.notional) for i in plan.intents] == [
        (Side.BUY, "SPY", D(500)),
        (Side.BUY, "VTI", D(300)),
    ]
    assert plan.rationale == "rebalance: buy SPY, buy VTI"


def test_sells_come_before_buys_and_an_untargeted_position_is_sold_whole() -> None:
    held = {"SPY": ("8", "800"), "OLD": ("10", "100")}
    plan = rebalancer().plan(snapshot(held, cash="150", buying_power="150"))
    assert [(i.side, i.symbol) for i in plan.intents] == [
        (Side.SELL, "OLD"),
        (Side.SELL, "SPY"),
        (Side.BUY, "VTI"),
    ]
    assert plan.intents[0].quantity == D(10) and plan.intents[0].notional is None
    assert plan.intents[1].notional == D(300)
    assert plan.intents[2].notional == D(150)  # what settled cash allows this tick


def test_within_the_bands_it_holds() -> None:
    plan = rebalancer().plan(snapshot({"SPY": ("5.2", "520"), "VTI": ("5.6", "280")}))
    assert plan.hold and plan.rationale == "hold: every weight is within its band"


def test_an_order_is_capped_at_the_policys_max_order_and_a_tiny_gap_is_left() -> None:
    plan = rebalancer("200").plan(snapshot({}))
    assert [i.notional for i in plan.intents] == [D(200), D(200)]
    tiny = rebalancer(SPY="0.8")
    assert tiny.plan(snapshot({"SPY": ("0", "0")}, equity="100")).hold


def test_reducing_plans_sells_only_and_says_what_it_left() -> None:
    plan = rebalancer().plan(snapshot({"OLD": ("10", "100")}), sells_only=True)
    assert [(i.side, i.symbol) for i in plan.intents] == [(Side.SELL, "OLD")]
    assert plan.dropped == (
        "SPY: buying is stopped (reducing)",
        "VTI: buying is stopped (reducing)",
    )
    held = rebalancer().plan(snapshot({}), sells_only=True)
    assert held.hold and "buying is stopped" in held.rationale


def test_without_cash_or_figures_it_holds_rather_than_guess() -> None:
    broke = rebalancer().plan(snapshot({}, cash="0", buying_power="1000"))
    assert broke.hold and "settled cash" in broke.rationale
    assert rebalancer().plan(snapshot(None)).hold
    assert rebalancer().plan(snapshot({}, equity=None)).hold
    unpriced = rebalancer().plan(snapshot({}, prices={}))
    assert unpriced.hold


def test_a_mid_price_falls_back_on_the_last_trade() -> None:
    shot = snapshot({})
    one_sided = Snapshot(
        signal=shot.signal,
        equity=shot.equity,
        cash=shot.cash,
        buying_power=shot.buying_power,
        positions=shot.positions,
        quotes={
            "SPY": Quote("SPY", None, D(101), D(100), AT),
            "VTI": Quote("VTI", None, None, None, AT),
            "QQQ": None,
        },
        open_orders=None,
    )
    assert one_sided.price("SPY") == D(100)
    assert one_sided.price("VTI") is None and one_sided.price("QQQ") is None
    assert one_sided.as_json()["quotes"]["QQQ"] is None
    assert len(one_sided.digest) == 64

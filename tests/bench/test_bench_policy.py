"""``ordergate bench policy``: the scenario decides as described, and a tiny run's shape."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from ordergate.bench import BENCHES, _policy
from ordergate.cli import app
from ordergate.policy import ReasonCode, Stage, evaluate
from ordergate.policy.options import Strategy, evaluate_options


def test_policy_is_a_registered_bench() -> None:
    assert BENCHES["policy"] is _policy.run_policy_bench


def test_the_scenario_allows_refuses_and_reduces_as_named() -> None:
    cases = _policy.scenario()
    decisions = {name: evaluate(*case, Stage.ESTIMATE) for name, case in cases.items()}
    assert decisions["evaluate_allowed"].allowed
    assert decisions["evaluate_refused"].reasons == (
        ReasonCode.MAX_ORDER_USD,
        ReasonCode.MAX_DAILY_USD,
    )
    reducing = decisions["evaluate_reducing"]
    assert reducing.allowed and reducing.reduces_position
    policy = cases["evaluate_allowed"][3]
    assert policy.allow and policy.deny and policy.min_cash_usd > 0
    assert _policy._baseline(*cases["evaluate_allowed"])


def test_the_option_case_is_a_four_leg_iron_condor_that_passes_every_check() -> None:
    ((proposal, terms, state, config),) = _policy.option_scenario().values()
    decision = evaluate_options(proposal, terms, state, config, Stage.ESTIMATE)
    assert len(proposal.legs) == 4
    assert decision.allowed and decision.strategy is Strategy.IRON_CONDOR
    assert decision.max_loss == Decimal(820) and decision.requires_approval


def test_bench_policy_prints_the_baseline_then_each_case_against_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_policy.SIZES, "quick", (2, 50, 10))
    result = CliRunner().invoke(app, ["bench", "policy", "--quick"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line, parse_float=Decimal) for line in result.output.splitlines()]
    assert [line["case"] for line in lines] == [
        "attribute_access_baseline",
        "evaluate_allowed",
        "evaluate_refused",
        "evaluate_reducing",
        "evaluate_options_four_leg",
    ]
    baseline, *compared = lines
    assert baseline["bench"] == "policy" and baseline["n"] == 100
    assert "ratio" not in baseline
    for line in compared:
        assert line["n"] == 100
        assert line["baseline"] == "attribute_access_baseline"
        assert line["ratio"] > 0
        assert line["p50_us"] <= line["p99_us"]


def test_an_unhealthy_baseline_scenario_stops_the_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_policy, "_baseline", lambda *case: False)
    with pytest.raises(RuntimeError, match="baseline"):
        _policy.run_policy_bench(quick=True, emit=lambda summary: None)

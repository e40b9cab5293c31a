"""``ordergate bench tokens``: the scenario verifies as described, and a tiny run's shape."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from ordergate.bench import BENCHES, _tokens
from ordergate.callers import (
    CallerKey,
    CallerRefusal,
    CallerVerifier,
    KeySource,
    RefusalReason,
)


def test_tokens_is_a_registered_bench() -> None:
    assert BENCHES["tokens"] is _tokens.run_tokens_bench


def test_the_scenario_token_verifies_and_its_tampered_twin_is_refused() -> None:
    material, token, tampered, clock = _tokens.scenario()
    verifier = CallerVerifier(CallerKey(material, source=KeySource.CALLER_TOKEN_KEY), clock)
    claims = verifier.verify(token)
    assert claims is not None and claims.connection is not None
    assert verifier.check(tampered) == CallerRefusal(RefusalReason.BAD_SIGNATURE)
    assert len(tampered) == len(token)


def test_bench_tokens_prints_the_baseline_then_each_case_against_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ordergate.cli import app

    monkeypatch.setitem(_tokens.SIZES, "quick", (2, 50, 10))
    result = CliRunner().invoke(app, ["bench", "tokens", "--quick"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line, parse_float=Decimal) for line in result.stdout.splitlines()]
    assert [line["case"] for line in lines] == [
        "hmac_sha256_bare",
        "verify_uncached",
        "verify_cached",
        "verify_tampered",
    ]
    baseline, *compared = lines
    assert baseline["bench"] == "tokens" and baseline["n"] == 100
    assert "ratio" not in baseline
    for line in compared:
        assert line["bench"] == "tokens" and line["n"] == 100
        assert line["baseline"] == "hmac_sha256_bare"
        assert line["ratio"] > 0
        assert line["p50_us"] <= line["p99_us"]
        assert set(line) == {
            "bench", "case", "n", "p50_us", "p99_us", "ops_per_s", "baseline", "ratio",
        }  # fmt: skip


def test_a_scenario_that_does_not_verify_stops_the_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    material, token, tampered, clock = _tokens.scenario()
    monkeypatch.setattr(_tokens, "scenario", lambda: (material, tampered, token, clock))
    with pytest.raises(RuntimeError, match="scenario"):
        _tokens.run_tokens_bench(quick=True, emit=lambda summary: None)

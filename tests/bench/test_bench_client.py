"""``ordergate bench client``: a short run against a real venue process, checked for shape."""

from __future__ import annotations

import json
from decimal import Decimal

import owner_testkit
import pytest
from typer.testing import CliRunner

from ordergate.bench import _client
from ordergate.cli import app
from ordergate.client import crypto_rest
from ordergate.core import Secret


def test_bench_client_prints_the_raw_baseline_then_typed_sdk_rest_and_guard_crypto_against_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_client.SIZES, "quick", (2, 5, 2))
    monkeypatch.setattr(_client, "GUARD_SHARE", 5)
    keys: list[str] = []
    issued = crypto_rest.ApiKey

    def scanned(api_key: Secret, private_key: Secret) -> crypto_rest.ApiKey:
        # The key the bench is issued is scanned for in its output, as every test key is.
        keys.append(private_key.reveal())
        owner_testkit.SECRETS.add(private_key.reveal())
        return issued(api_key, private_key)

    monkeypatch.setattr(crypto_rest, "ApiKey", scanned)
    result = CliRunner().invoke(app, ["bench", "client", "--quick"])
    assert result.exit_code == 0, result.output
    assert len(keys) == 1
    lines = [json.loads(line, parse_float=Decimal) for line in result.output.splitlines()]
    assert [line["case"] for line in lines] == [
        "raw_jsonrpc_post",
        "typed_market_quotes",
        "sdk_call_tool",
        "rest_signing",
        "rest_best_bid_ask",
        "guard_crypto_mcp",
        "guard_crypto_rest",
    ]
    baseline, *compared = lines
    assert baseline["bench"] == "client"
    assert baseline["n"] == 10
    assert "ratio" not in baseline
    for line in compared:
        assert line["n"] == (2 if line["case"].startswith("guard_") else 10)
        assert line["baseline"] == "raw_jsonrpc_post"
        # Signing is pure CPU, well under 1 % of a loopback round trip: its ratio may round
        # to 0.00; every other case is at least one round trip.
        assert line["ratio"] >= 0 if line["case"] == "rest_signing" else line["ratio"] > 0

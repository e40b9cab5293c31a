"""``/metrics``: forwarded calls counted by tool and outcome, their latency in a histogram,
over a real gateway on loopback (the Prometheus text format, read back with its parser)."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from gateway_testkit import SPY_POLICY, sandbox_gateway
from mcp_http_testkit import McpSession
from prometheus_client.parser import text_string_to_metric_families

from ordergate.gateway._minting import mint_owner_tokens

pytestmark = pytest.mark.req("gateway.metrics")

LIVE_POLICY = 'mode = "live"\nreal_money = true\n' + SPY_POLICY


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_forwarded_calls_are_counted_by_tool_and_outcome_and_timed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Live: every read is forwarded, quotes too (on paper the venue's engine answers them).
    server = sandbox_gateway(tmp_path, monkeypatch, policy=LIVE_POLICY)
    with server as url:
        assert server.auth is not None
        token = mint_owner_tokens(server.auth.store, client_name="m", resource=url + "/mcp")
        session = McpSession(url, token.access_token)
        try:
            for _ in range(3):
                session.tool("get_equity_quotes", {"symbols": ["AAPL"]})
            # The venue refuses arguments its schema does not take: a forwarded call failed.
            failed = session.result(
                "tools/call", {"name": "get_equity_quotes", "arguments": {"symbols": "x"}}
            )
            assert failed["isError"] is True
        finally:
            session.close()
        with httpx2.Client(timeout=30) as http:
            exposed = http.get(url + "/metrics")
    assert exposed.status_code == 200
    assert exposed.headers["content-type"].startswith("text/plain")
    samples = _samples(exposed.text)
    quotes = (("outcome", "ok"), ("tool", "get_equity_quotes"))
    assert samples["ordergate_gateway_upstream_calls_total", quotes] == 3
    tool = (("tool", "get_equity_quotes"),)
    assert samples["ordergate_gateway_upstream_seconds_bucket", (("le", "+Inf"), *tool)] == 4
    assert 0 < samples["ordergate_gateway_upstream_seconds_sum", tool] < 30
    buckets = [
        value
        for (name, labels), value in samples.items()
        if name == "ordergate_gateway_upstream_seconds_bucket"
        and ("tool", "get_equity_quotes") in labels
    ]
    assert buckets == sorted(buckets) and len(buckets) == 15  # cumulative, 14 bounds and +Inf
    failed_calls = (("outcome", "error"), ("tool", "get_equity_quotes"))
    assert samples["ordergate_gateway_upstream_calls_total", failed_calls] == 1
    assert samples["ordergate_gateway_upstream_seconds_count", tool] == 4  # both outcomes timed
    # Labels are tool names and outcomes only: never a token, an account or an identity.
    assert token.access_token not in exposed.text and '"x"' not in exposed.text

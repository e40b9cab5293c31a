"""The official TypeScript MCP SDK client (``@modelcontextprotocol/sdk``, pinned) connects to
``ordergate serve --sandbox`` through the whole OAuth flow: discovery from the 401, dynamic
registration, the consent page approved with the owner code, the code exchanged with PKCE;
then it lists every tool and calls a read tool, all over loopback sockets."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gateway_testkit import sandbox_gateway
from npm_testkit import installed, node
from owner_testkit import enrol

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ts_sdk_client.mjs"
# Generous: sign-in, the tool pages and a quote take about a second on loopback.
BOUND_S = 60


def _drive(modules: Path, mcp_url: str, owner_code: str) -> dict[str, Any]:
    run = subprocess.run(
        [node(), str(SCRIPT), str(modules), mcp_url],
        env={**os.environ, "CONSENT_OWNER_CODE": owner_code},
        capture_output=True,
        text=True,
        timeout=BOUND_S,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    seen: dict[str, Any] = json.loads(run.stdout)
    return seen


@pytest.mark.req("clients.real.typescript-sdk")
def test_the_typescript_sdk_client_signs_in_lists_the_tools_and_reads_a_quote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    modules = installed()
    server = sandbox_gateway(tmp_path, monkeypatch)
    codes = enrol(tmp_path / "home")
    with server as url:
        seen = _drive(modules, url + "/mcp", codes.next())
        auth = server.auth
        assert auth is not None
        client = auth.store.client(seen["clientId"])

    # One trip through consent, for a client the gateway registered under the SDK's name.
    assert seen["challenged"] is True and seen["consentPages"] == 1
    assert client is not None and client.client_name == "ordergate-ts-sdk"
    assert seen["tokenType"].lower() == "bearer" and seen["hasRefreshToken"] is True
    assert seen["scope"] == "gateway"
    assert seen["protocolVersion"] == "2025-11-25"
    # A monitor connection (the consent's default) sees the reads and the gate's own tools.
    assert {"get_equity_quotes", "get_accounts", "gate_how"} <= set(seen["tools"])
    assert "place_equity_order" not in seen["tools"]
    quote = seen["quote"]
    assert quote["isError"] is False, quote
    assert quote["structuredContent"]["data"]["results"][0]["quote"]["symbol"] == "SPY"

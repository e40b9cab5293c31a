"""The official TypeScript MCP SDK, both lines, gets an order held for the owner through
approval on ``ordergate serve --sandbox``: the 2.x client (``@modelcontextprotocol/client``
2.4.0) speaks 2026-07-28 and takes the held order's URL-mode elicitation (the approval's
console page) in its elicitation handler, then its own retry gets the placed order; the 1.x
SDK gets ``pending_approval`` and reads the placed order from ``gate_record`` once the owner
approved. Each signs in through the consent page, lists the tools and reads a quote first
(``ts_sdk_client.mjs``). The test plays the owner on the owner channel, as ``ordergate
approve`` does, when the script says the owner must act."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from gateway_testkit import HELD_ORDER, HELD_POLICY, PLACED, sandbox_gateway
from npm_testkit import installed, node
from owner_testkit import OwnerCodes, channel_act, enrol

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ts_sdk_client.mjs"
BOUND_S = 90


def _drive(
    modules: Path, url: str, home: Path, codes: OwnerCodes, sdk: str
) -> tuple[dict[str, Any], list[str]]:
    """What the script saw, and what the owner was asked to act on (each approved)."""
    env = {
        **os.environ,
        "CONSENT_OWNER_CODE": codes.next(),
        "CONSENT_PROFILE": "trader",
        "MCP_SDK": sdk,
        "ORDER": json.dumps(HELD_ORDER),
    }
    process = subprocess.Popen(
        [node(), str(SCRIPT), str(modules), url + "/mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(BOUND_S, process.kill)  # bounds every read below
    watchdog.start()
    asked: list[str] = []
    last = ""
    try:
        assert process.stdout is not None and process.stdin is not None
        for line in process.stdout:
            last = line
            if line.startswith("OWNER "):
                what = line.removeprefix("OWNER ").strip()
                asked.append(what)
                approval_id = what.rsplit("/", 1)[1] if "/" in what else what
                approved = channel_act(home, "approve", {"approval_id": approval_id}, codes.next())
                assert approved.status_code == 200, approved.text
                process.stdin.write("ok\n")
                process.stdin.flush()
        stderr = process.stderr.read() if process.stderr is not None else ""
        assert process.wait() == 0, stderr[-4000:]
    finally:
        watchdog.cancel()
        process.kill()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    seen: dict[str, Any] = json.loads(last)
    return seen, asked


@pytest.mark.req("clients.real.typescript-sdk-eras")
@pytest.mark.req("mcp.held.input-required")
def test_the_typescript_sdk_2x_gets_a_held_order_through_the_consoles_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    modules = installed()
    server = sandbox_gateway(tmp_path, monkeypatch, policy=HELD_POLICY)
    codes = enrol(tmp_path / "home")
    with server as url:
        seen, asked = _drive(modules, url, tmp_path / "home", codes, "2")
    assert seen["protocolVersion"] == "2026-07-28"
    assert "place_equity_order" in seen["tools"]
    assert seen["quote"]["isError"] is False
    assert seen["order"]["answered"] in PLACED
    [page] = asked
    assert page.startswith(url + "/console/approvals/")
    assert seen["order"]["elicited"] == [page]


@pytest.mark.req("clients.real.typescript-sdk-eras")
def test_the_typescript_sdk_1x_gets_the_pending_answer_then_the_placed_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    modules = installed()
    server = sandbox_gateway(tmp_path, monkeypatch, policy=HELD_POLICY)
    codes = enrol(tmp_path / "home")
    with server as url:
        seen, asked = _drive(modules, url, tmp_path / "home", codes, "1")
    assert seen["protocolVersion"] == "2025-11-25"
    assert seen["order"]["answered"] == "pending_approval"
    assert seen["order"]["standing"] in PLACED
    assert len(asked) == 1 and "/" not in asked[0]

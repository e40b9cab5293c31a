"""The MCP Python SDK (2.3) against the gateway in both eras: in its default mode it probes
``server/discover`` and speaks 2026-07-28; pinned to ``legacy`` it shakes hands. Each signs in
with the SDK's own OAuth client through the consent page, lists the tools, reads a quote and
places an order the policy holds for the owner, then gets it through approval; the test plays
the owner on the owner channel, as ``ordergate approve`` does.

- 2026-07-28: the held order answers an ``InputRequiredResult``; the SDK hands its URL-mode
  elicitation (the approval's console page) to the client's elicitation callback, where the
  owner approves, then retries with the ``requestState`` and gets the placed order;
- legacy (2025-11-25, declaring ``elicitation.url`` as the SDK does with an elicitation
  callback): the held order answers ``pending_approval``, with ``elicitation/create`` in URL
  mode (the same console page) asked first, where the owner approves; the agent's
  ``gate_record`` then shows it placed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from gateway_testkit import HELD_ORDER, HELD_POLICY, PLACED, sandbox_gateway
from oauth_testkit import ConsentBrowser, sdk_provider
from owner_testkit import OwnerCodes, channel_act, enrol

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:51241/callback"
BOUND_S = 90


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Owner:
    """The owner at the owner channel of the gateway whose home is ``home``."""

    def __init__(self, home: Path, codes: OwnerCodes) -> None:
        self.home = home
        self.codes = codes
        self.approved: list[str] = []

    async def approve(self, approval_id: str) -> None:
        def act() -> int:
            answer = channel_act(
                self.home, "approve", {"approval_id": approval_id}, self.codes.next()
            )
            return answer.status_code

        assert await anyio.to_thread.run_sync(act) == 200
        self.approved.append(approval_id)


async def _agent(url: str, home: Path, codes: OwnerCodes, mode: str) -> dict[str, Any]:
    """What the SDK's client in ``mode`` saw: the era, the tool count, the quote's symbol,
    the order's first answer and where it stands once approved."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import ElicitResult

    owner = Owner(home, codes)
    browser = ConsentBrowser(profile="trader", owner_code=codes.next)
    provider = sdk_provider(url + "/mcp", browser, client_name=f"sdk-{mode}", redirect=REDIRECT)
    offered: list[str] = []
    acted = anyio.Event()

    async def elicited(context: Any, params: Any) -> Any:
        offered.append(params.url)  # the approval's console page: the owner approves there
        await owner.approve(params.url.rsplit("/", 1)[1])
        acted.set()
        return ElicitResult(action="accept")

    seen: dict[str, Any] = {}
    with anyio.fail_after(BOUND_S):
        async with (
            httpx2.AsyncClient(auth=provider, timeout=BOUND_S) as http,
            Client(
                streamable_http_client(url + "/mcp", http_client=http),
                mode=mode,
                elicitation_callback=elicited,
            ) as client,
        ):
            session = client.session
            seen["discovered"] = session.discover_result is not None
            seen["tools"] = len((await client.list_tools()).tools)
            quote = await client.call_tool("get_equity_quotes", {"symbols": ["SPY"]})
            assert isinstance(quote.structured_content, dict)
            seen["quote"] = quote.structured_content["data"]["results"][0]["quote"]["symbol"]
            order = await client.call_tool("place_equity_order", HELD_ORDER)
            assert isinstance(order.structured_content, dict), order
            data = order.structured_content["data"]
            seen["answered"] = data["status"]
            if data["status"] == "pending_approval":  # the handshake era: read back
                await acted.wait()  # the SDK runs the elicitation beside the answer
                record = await client.call_tool("gate_record", {})
                assert isinstance(record.structured_content, dict)
                filings = record.structured_content["data"]["filings"]
                data = next(f for f in filings if f["filing_id"] == data["filing_id"])
            seen["standing"] = data["status"]
            seen["offered"] = offered
            seen["approved"] = owner.approved
    return seen


@pytest.mark.req("clients.real.python-sdk-eras")
@pytest.mark.req("mcp.held.input-required")
async def test_the_python_sdk_in_its_default_mode_gets_a_held_order_through_the_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sandbox_gateway(tmp_path, monkeypatch, policy=HELD_POLICY)
    codes = enrol(tmp_path / "home")
    with server as url:
        seen = await _agent(url, tmp_path / "home", codes, "auto")
    assert seen["discovered"] is True
    assert seen["tools"] > 0 and seen["quote"] == "SPY"
    assert seen["answered"] in PLACED  # the SDK drove the input-required round trip itself
    assert seen["standing"] in PLACED
    [page] = seen["offered"]
    assert page == f"{url}/console/approvals/{seen['approved'][0]}"


@pytest.mark.req("clients.real.python-sdk-eras")
async def test_the_python_sdk_pinned_to_legacy_gets_the_console_page_by_elicitation_create(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sandbox_gateway(tmp_path, monkeypatch, policy=HELD_POLICY)
    codes = enrol(tmp_path / "home")
    with server as url:
        seen = await _agent(url, tmp_path / "home", codes, "legacy")
    assert seen["discovered"] is False
    assert seen["tools"] > 0 and seen["quote"] == "SPY"
    assert seen["answered"] == "pending_approval"
    assert seen["standing"] in PLACED
    [page] = seen["offered"]  # elicitation/create, URL mode, before the answer
    assert page == f"{url}/console/approvals/{seen['approved'][0]}"

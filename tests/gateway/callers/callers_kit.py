"""The gateway as ``ordergate serve --sandbox`` runs it with a caller key on the host, and the
two ways an agent holding a caller token reaches it: MCP and the capability broker."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gateway_testkit import OPEN, sandbox_gateway, settled
from mcp_http_testkit import McpSession

from ordergate.callers import CallerKey, CallerVerifier, mint
from ordergate.core import Secret, SteppedClock
from ordergate.gateway._callers import caller_identity
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._serve import GatewayServer
from ordergate.ledger import FilingRecord, FilingStatus
from ordergate.runtime import EMBEDDED_ACCOUNT

MASTER = "host-master-secret-" + "k" * 24
POLICY = """
approval = "never"
[symbols]
allow = ["SPY"]
"""
BOUND_S = 30
BUY = {
    "account_number": EMBEDDED_ACCOUNT,
    "symbol": "SPY",
    "side": "buy",
    "type": "market",
    "dollar_amount": "5",
}


@dataclass
class Host:
    url: str
    server: GatewayServer
    key: CallerKey
    market: SteppedClock

    def token(
        self,
        caller: str = "bot-1",
        profile: str = "trader",
        *,
        key: CallerKey | None = None,
        issued_ago: timedelta = timedelta(0),
        ttl: timedelta = timedelta(minutes=15),
    ) -> str:
        minted = mint(
            key or self.key, caller=caller, profile=profile, ttl=ttl, now=OPEN - issued_ago
        )
        return minted.reveal()

    def identity(self, token: str) -> str:
        """What the filings of an unbound caller ``token`` are recorded under."""
        claims = CallerVerifier(self.key, SteppedClock(start=OPEN)).verify(token)
        assert claims is not None
        return caller_identity(claims, None)

    def mcp(self, token: str, **headers: str) -> McpSession:
        return McpSession(self.url, token, headers)

    def broker(self, token: str, capability: str, body: Any, **headers: str) -> httpx2.Response:
        with httpx2.Client(timeout=BOUND_S) as http:
            return http.post(
                f"{self.url}/api/capability/{capability}",
                json=body,
                headers={"authorization": f"Bearer {token}", **headers},
            )

    def filings(self, identity: str) -> list[FilingRecord]:
        assert self.server.running is not None
        return self.server.running.guard.ledger.filings_of(identity, limit=100)

    def settled(self, filing_id: str) -> FilingStatus:
        """The filing's status once the venue has had its time and the gateway's reconciler
        has booked it (a paper order placed ``submitted`` is then ``filled``)."""
        return settled(self.server, filing_id, market=self.market)


@contextmanager
def host_gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    key = CallerKey.derive(Secret(MASTER))
    market = SteppedClock(start=OPEN)
    server = sandbox_gateway(
        tmp_path,
        monkeypatch,
        policy=POLICY,
        config=GatewayConfig(port=0, caller_key=key),
        clock=market,
    )
    with server as url:
        yield Host(url=url, server=server, key=key, market=market)

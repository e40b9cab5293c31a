"""A gateway with an enrolled owner and a caller key, an agent's MCP session on it, and the
owner channel (its Unix socket) spoken to as the owner's commands speak to it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gateway_testkit import OPEN, sandbox_gateway, settled
from mcp_http_testkit import McpSession
from owner_command_testkit import owner_command
from owner_testkit import PASSPHRASE, OwnerCodes, channel_act, enrol, owner_channel
from typer.testing import Result

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret, SecurityClock, SteppedClock
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._minting import mint_owner_tokens
from ordergate.gateway._serve import GatewayServer
from ordergate.ledger import FilingStatus, Ledger
from ordergate.owner import DEFAULT_LOOSEN_DELAY
from ordergate.runtime import EMBEDDED_ACCOUNT

BOUND_S = 30
MASTER = "desk-master-secret-" + "m" * 24
HELD_POLICY = """
approval = "always"
[symbols]
allow = ["SPY"]
"""
_TTL = timedelta(minutes=15)
BUY = {
    "account_number": EMBEDDED_ACCOUNT,
    "symbol": "SPY",
    "side": "buy",
    "type": "market",
    "dollar_amount": "5",
}


@dataclass
class Desk:
    url: str
    server: GatewayServer
    codes: OwnerCodes
    key: CallerKey
    home: Path
    market: SteppedClock
    """The gateway's market clock: it stands still until the test steps it."""
    clock: SteppedClock | None = None
    """Security time (the owner's delays run on it), when the kit steps it."""
    agent_token: str = field(default="", repr=False)
    placed: int = 0  # orders placed with the default terms: each is a cent more, so none
    # is a duplicate of the one before (duplicate_order is pinned in test_gateway_pace)

    def pass_delay(self, delay: timedelta = DEFAULT_LOOSEN_DELAY) -> None:
        """Step security time past the owner's delay, then let the gateway run what is due
        (it does, before any owner read)."""
        assert self.clock is not None, "this desk's security time is not stepped"
        self.clock.advance(delay + timedelta(seconds=1))
        assert self.get("/status").status_code == 200

    @property
    def ledger(self) -> Ledger:
        assert self.server.running is not None
        return self.server.running.guard.ledger

    @property
    def socket(self) -> Path:
        """The gateway's owner channel (in its home, as ``ordergate serve`` puts it)."""
        return self.home / "run" / "owner.sock"

    def get(self, path: str, **headers: str) -> httpx2.Response:
        with owner_channel(self.home, timeout_s=BOUND_S) as http:
            return http.get(f"/owner{path}", headers=headers)

    def post(self, path: str, body: dict[str, Any] | None = None, **headers: str) -> Any:
        with owner_channel(self.home, timeout_s=BOUND_S) as http:
            return http.post(f"/owner{path}", json=body or {}, headers=headers)

    def command(self, *args: str, code: str | None = None) -> Result:
        """``ordergate ARGS --owner-socket PATH`` as the owner runs it: no key, no ledger of
        its own; ``code``, when given, on standard input (``--code-stdin``)."""
        return owner_command(self.home, *args, code=code)

    def act(self, act: str, params: dict[str, Any], code: str | None = None) -> Any:
        """An owner act as the owner's commands make it: prepared, then authorised."""
        return channel_act(self.home, act, params, code)

    def place(self, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """What an agent holding a trader caller token hears when it places an order (one
        token for every order, so they are one caller's filings); by default a $5 buy of
        SPY, a cent more each time."""
        if arguments is None:
            arguments = {**BUY, "dollar_amount": f"{Decimal(5) + Decimal(self.placed) / 100}"}
            self.placed += 1
        if not self.agent_token:
            now = self.clock.now() if self.clock is not None else OPEN
            minted = mint(self.key, caller="agent", profile="trader", ttl=_TTL, now=now)
            self.agent_token = minted.reveal()
        session = McpSession(self.url, self.agent_token)
        try:
            data: dict[str, Any] = session.tool("place_equity_order", arguments)["data"]
        finally:
            session.close()
        return data

    def connected_client(self, name: str, profile: str = "monitor") -> None:
        """A client named ``name`` approved once and holding its tokens: a connection."""
        auth = self.server.auth
        assert auth is not None
        mint_owner_tokens(auth.store, client_name=name, resource=self.url + "/mcp", profile=profile)

    def settled(self, filing_id: str) -> FilingStatus:
        """The filing's status once the venue has had its time (the market clock run 2 s)
        and the gateway's reconciler has booked it: a paper order placed ``submitted`` is
        then ``filled``."""
        return settled(self.server, filing_id, market=self.market)

    def held_order(self) -> dict[str, Any]:
        """An order an agent filed that now waits for the owner: its order result's data."""
        data = self.place()
        assert data["status"] == "pending_approval", data
        return data


@contextmanager
def owner_desk(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    policy: str = HELD_POLICY,
    passphrase: str | None = PASSPHRASE,
    webhook_url: str | None = None,
    gateway_clock: SteppedClock | None = None,
    profiles: Mapping[str, str] | None = None,
) -> Iterator[Desk]:
    """The desk; ``gateway_clock``, when given, is the gateway's own clock (approvals expire
    on it), stepped by the test; else the desk's ``market`` clock stands at ``OPEN`` until a
    settle steps it. ``profiles``: each profile file's text by the profile's name, in the
    gateway's home."""
    key = CallerKey.derive(Secret(MASTER))
    clock = SteppedClock(start=OPEN)
    market = gateway_clock or SteppedClock(start=OPEN)
    server = sandbox_gateway(
        tmp_path,
        monkeypatch,
        policy=policy,
        config=GatewayConfig(port=0, caller_key=key),
        clock=market,
        security_clock=SecurityClock(clock),
        webhook_url=webhook_url,
    )
    home = tmp_path / "home"
    for name, profile in (profiles or {}).items():
        (home / "profiles").mkdir(exist_ok=True)
        (home / "profiles" / f"{name}.yaml").write_text(profile)
    codes = enrol(home, passphrase=passphrase)
    with server as url:
        yield Desk(
            url=url,
            server=server,
            codes=codes,
            key=key,
            home=home,
            clock=clock,
            market=market,
        )

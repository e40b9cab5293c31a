"""The gateway's ``/mcp`` endpoint on real loopback HTTP, in front of a real sandbox venue.

``gateway(tmp_path)`` starts the venue on a free port (a stepped clock shared with the
gateway), connects a ``Robinhood`` to it with minted tokens (as ``guard_kit`` does), opens a
ledger and a paper guard from the same pieces as ``guard_kit``, and serves
``gateway_endpoint`` with uvicorn on another free port *in the test's own event loop* (the
client and guard it uses were made in that loop). The backend forwards to the venue and
records what it was asked; the verifier accepts one fixed token as connection ``c1`` and
another as connection ``c2``, both under the profile ``gateway(profile=…)`` names.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import httpx2
import owner_testkit
import uvicorn
from client_testkit import account_number, write_minted
from starlette.applications import Starlette
from starlette.routing import Route
from venue_testkit import START, VenueClient

from ordergate._serving import _Server, bind_socket
from ordergate.client import Config, Robinhood, connect
from ordergate.client.crypto_rest import ApiKey, CryptoRest
from ordergate.core import Secret, SteppedClock
from ordergate.execution import Guard
from ordergate.gateway.mcp import Credential, GatewayMethods, Principal, gateway_endpoint
from ordergate.ledger import FilingRecord, Ledger, open_ledger
from ordergate.policy import PolicyConfig, parse_policy
from ordergate.profiles import load_profiles
from ordergate.sandbox import SandboxConfig, SandboxServer
from ordergate.venues import Venue
from ordergate.venues.paper import PaperVenue
from ordergate.venues.robinhood import MarketVolumes, RobinhoodVenue

BOUND_S = 30
TOKEN = "gateway-test-token-c1"
CONNECTION = "c1"
OTHER_TOKEN = "gateway-test-token-c2"
OTHER_CONNECTION = "c2"
ACCEPT = "application/json, text/event-stream"
DEFAULT_VENUE_CASH = Decimal("100000.00")
"""The sandbox's own default (``SandboxConfig.cash``)."""

OPEN_POLICY = """
approval = "never"
[limits]
max_order_usd = "5000"
max_daily_usd = "20000"
max_orders_per_day = 50
max_open_orders = 10
max_position_pct = "100"
max_spread_bps = 500
price_collar_bps = 1000
[symbols]
allow = ["*"]
[orders]
types = ["market", "limit", "stop_market", "stop_limit"]
[paper]
starting_cash_usd = "100000"
"""


def identity_of(connection_id: str) -> str:
    return hashlib.sha256(connection_id.encode()).hexdigest()


def principal(
    connection_id: str = CONNECTION, profile: str | None = "trader", **kind: Any
) -> Principal:
    """The principal an OAuth token of ``connection_id`` resolves to (its hashed identity)."""
    return Principal(
        connection_id=connection_id,
        identity=kind.get("identity", identity_of(connection_id)),
        profile=profile,
        credential=kind.get("credential", Credential.OAUTH),
    )


class FixedVerifier:
    """Accepts ``TOKEN`` as connection ``connection`` (``c1``) and ``OTHER_TOKEN`` as another
    person's connection ``c2``, both under ``profile``; nothing else."""

    def __init__(self, metadata_url: str, *, profile: str | None = "trader") -> None:
        self.metadata_url = metadata_url
        self.connection = CONNECTION
        self.profile = profile

    async def verify(self, token: str) -> Principal | None:
        if hmac.compare_digest(token.encode(), TOKEN.encode()):
            return principal(self.connection, self.profile)
        if hmac.compare_digest(token.encode(), OTHER_TOKEN.encode()):
            return principal(OTHER_CONNECTION, self.profile)
        return None

    def www_authenticate(self, *, error: str | None = None) -> str:
        value = f'Bearer resource_metadata="{self.metadata_url}"'
        return value if error is None else f'{value}, error="{error}"'


@dataclass
class VenueBackend:
    """A ``GatewayBackend`` forwarding to the venue through a real ``Robinhood``."""

    rh: Robinhood
    the_guard: Guard
    extra_tools: Sequence[dict[str, Any]] = ()
    forwarded: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    disconnected: list[str] = field(default_factory=list)
    list_reads: int = 0

    async def upstream_tools(self, connection_id: str) -> list[dict[str, Any]]:
        self.list_reads += 1
        return [*await self.rh.list_tools(), *self.extra_tools]

    async def forward(self, connection_id: str, name: str, arguments: dict[str, Any]) -> Any:
        self.forwarded.append((name, arguments))
        return await self.rh.call(name, arguments)

    async def guard(self, connection_id: str) -> Guard:
        return self.the_guard

    def open_guard(self, connection_id: str) -> Guard | None:
        return self.the_guard

    def identity(self, connection_id: str) -> str:
        return identity_of(connection_id)

    async def disconnect(self, connection_id: str) -> None:
        self.disconnected.append(connection_id)


@dataclass
class Gateway:
    url: str
    public_url: str
    http: httpx2.AsyncClient
    backend: VenueBackend
    guard: Guard
    ledger: Ledger
    clock: SteppedClock
    venue: VenueClient
    verifier: FixedVerifier
    account: str
    _next_id: int = 0

    async def post(
        self, content: bytes, *, token: str | None = TOKEN, **headers: str
    ) -> httpx2.Response:
        merged = {"accept": ACCEPT, "content-type": "application/json"}
        if token is not None:
            merged["authorization"] = f"Bearer {token}"
        merged.update(headers)
        return await self.http.post(self.url, content=content, headers=merged)

    async def rpc(
        self, method: str, params: dict[str, Any] | None = None, *, token: str = TOKEN
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        response = await self.post(json.dumps(message).encode(), token=token)
        assert response.status_code == 200, (response.status_code, response.text)
        answer: dict[str, Any] = response.json()
        return answer

    async def tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = (await self.rpc("tools/list"))["result"]["tools"]
        return tools

    async def call(
        self, name: str, arguments: dict[str, Any] | None = None, *, token: str = TOKEN
    ) -> dict[str, Any]:
        answer = await self.rpc(
            "tools/call", {"name": name, "arguments": arguments or {}}, token=token
        )
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    async def refusal(
        self, name: str, arguments: dict[str, Any] | None = None, *, token: str = TOKEN
    ) -> dict[str, Any]:
        """The ``error`` of a call the gateway must refuse."""
        result = await self.call(name, arguments, token=token)
        assert result["isError"] is True, result
        error: dict[str, Any] = result["structuredContent"]["error"]
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        return error

    async def settle(self) -> None:
        """Let what the venue placed fill as the venue fills it: past its 1 s confirmation
        delay (the clock moved 2 s), then the reconciler's poll reads the book."""
        self.clock.advance(timedelta(seconds=2))
        await self.guard.reconcile()

    def filings(self, identity: str | None = None) -> list[FilingRecord]:
        """Every filing of ``identity`` (``c1``'s by default), newest first."""
        return self.ledger.filings_of(identity or identity_of(CONNECTION), limit=1000)


CUSTODIAN = """
name: custodian
description: Reads, and cancels any order in the account.
permissions: [account.read, market.read, orders.read, orders.cancel, orders.cancel_any]
"""


def custodian_home(tmp_path: Path) -> Path:
    """A home defining the profile ``custodian``, which may cancel orders it did not file."""
    home = tmp_path / "home"
    (home / "profiles").mkdir(parents=True)
    (home / "profiles" / "custodian.yaml").write_text(CUSTODIAN)
    return home


def policy(extra: str = "") -> PolicyConfig:
    return parse_policy(OPEN_POLICY.replace('approval = "never"', extra or 'approval = "never"'))


@asynccontextmanager
async def gateway(
    tmp_path: Path,
    *,
    config: PolicyConfig | None = None,
    extra_tools: Sequence[dict[str, Any]] = (),
    max_open: int = 5,
    profile: str | None = "trader",
    profiles_home: Path | None = None,
    live: bool = False,
    ledger_url: str | None = None,
    account_type: str = "cash",
    option_level: int = 2,
    venue_cash: Decimal | None = None,
    crypto_rest: bool = False,
) -> AsyncIterator[Gateway]:
    """The gateway in front of a fresh venue: a paper venue, or with ``live`` the venue
    itself; the ledger is SQLite in ``tmp_path`` unless ``ledger_url`` names another. The
    venue's agentic account is of ``account_type`` at ``option_level``, with ``venue_cash``
    (the sandbox's default without it). ``crypto_rest``: live, the venue's Crypto Trading
    REST rail too, on a key the sandbox issued (its private key in the suite's secret scan)."""
    rules = config or policy()
    clock = SteppedClock(start=START)
    with (
        SandboxServer(
            SandboxConfig(
                port=0,
                seed=7,
                account_type=account_type,
                option_level=option_level,
                cash=DEFAULT_VENUE_CASH if venue_cash is None else venue_cash,
            ),
            clock=clock,
        ) as sandbox,
        VenueClient(sandbox.base_url) as client,
    ):
        client.sign_in()
        token_file = tmp_path / "venue-tokens.json"
        write_minted(client, token_file, expires_at=None)
        async with AsyncExitStack() as stack:
            ledger = stack.enter_context(
                open_ledger(
                    ledger_url or f"sqlite:///{tmp_path / 'gateway-ledger.db'}", clock=clock
                )
            )
            with anyio.fail_after(BOUND_S):
                rh = await stack.enter_async_context(
                    connect(Config(url=client.mcp_url, token_file=token_file), clock=clock)
                )
            account = account_number(client)
            venue: Venue
            if live:
                rest = None
                if crypto_rest:
                    issued = client.admin("crypto_api_keys", {})
                    owner_testkit.SECRETS.add(issued["private_key"])
                    key = ApiKey(Secret(issued["api_key"]), Secret(issued["private_key"]))
                    rest = await stack.enter_async_context(
                        CryptoRest(key=key, base_url=client.base_url)
                    )
                venue = RobinhoodVenue.through(rh, clock=clock, crypto_rest=rest)
            else:
                venue = PaperVenue.for_policy(
                    rh, ledger.engine, rules, clock=clock, account=account
                )
            guard = Guard(
                policy=rules,
                ledger=ledger,
                venue=venue,
                account=account,
                clock=clock,
                volumes=MarketVolumes(rh.market, clock=clock),
            )
            backend = VenueBackend(rh, guard, extra_tools)
            methods = GatewayMethods(
                backend,
                clock=clock,
                profiles=load_profiles(profiles_home, rules),
                max_open=max_open,
            )
            sock = bind_socket("127.0.0.1", 0)
            public_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
            verifier = FixedVerifier(
                f"{public_url}/.well-known/oauth-protected-resource/mcp", profile=profile
            )
            endpoint = gateway_endpoint(
                methods,
                verify=verifier.verify,
                challenge=verifier.www_authenticate,
                public_url=public_url,
            )
            app = Starlette(routes=[Route("/mcp", endpoint)])
            ready = anyio.Event()
            server = _Server(
                uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"),
                on_ready=ready.set,
            )
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(server.serve, [sock])
                try:
                    with anyio.fail_after(BOUND_S):
                        await ready.wait()
                    async with httpx2.AsyncClient(timeout=BOUND_S) as http:
                        yield Gateway(
                            url=f"{public_url}/mcp",
                            public_url=public_url,
                            http=http,
                            backend=backend,
                            guard=guard,
                            ledger=ledger,
                            clock=clock,
                            venue=client,
                            verifier=verifier,
                            account=account,
                        )
                finally:
                    server.should_exit = True
            sock.close()

"""A guard wired to a real sandbox venue over loopback, sharing one stepped clock.

``desk()`` starts the venue on a free port, signs a ``Robinhood`` client in, opens a ledger
(SQLite in ``tmp_path``, or the URL given) and builds the guard — paper (the venue's own
engine on a paper book in the ledger, on the venue's quotes) or live (the venue is the
broker). The clock is the venue's: a test moves both with ``desk.step(seconds)``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import owner_testkit
from client_testkit import account_number, write_minted
from venue_testkit import START, VenueClient

from ordergate.client import Config, Robinhood, connect
from ordergate.client.crypto_rest import ApiKey, CryptoRest
from ordergate.core import MarketHours, OrderType, Secret, Side, SteppedClock
from ordergate.execution import Guard, Outcome
from ordergate.ledger import FilingStatus, Ledger, open_ledger
from ordergate.policy import PolicyConfig, Proposal, parse_policy
from ordergate.sandbox import SandboxConfig, SandboxServer
from ordergate.venues import AccountReader, OrderExecutor, Venue
from ordergate.venues.paper import PaperVenue
from ordergate.venues.robinhood import RobinhoodVenue

BOUND_S = 30

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


def policy(extra: str = "", *, base: str = OPEN_POLICY) -> PolicyConfig:
    """The open test policy with ``extra`` TOML lines merged in (later keys win per table)."""
    document: dict[str, dict[str, str]] = {"": {}}
    table = ""
    for line in [*base.splitlines(), "[]", *extra.splitlines()]:
        text = line.strip()
        if text == "[]":  # the extra lines start at the top level again
            table = ""
            continue
        if not text or text.startswith("#"):
            continue
        if text.startswith("["):
            table = text.strip("[]")
            document.setdefault(table, {})
            continue
        key = text.split("=", 1)[0].strip()
        document.setdefault(table, {})[key] = text
    lines = list(document.pop("").values())
    for name, entries in document.items():
        lines.append(f"[{name}]")
        lines.extend(entries.values())
    return parse_policy("\n".join(lines))


def buy(symbol: str = "SPY", **terms: Any) -> Proposal:
    terms.setdefault("quantity", None if "notional" in terms else Decimal(1))
    return Proposal(symbol=symbol, side=Side.BUY, **terms)


def sell(symbol: str = "SPY", **terms: Any) -> Proposal:
    terms.setdefault("quantity", None if "notional" in terms else Decimal(1))
    return Proposal(symbol=symbol, side=Side.SELL, **terms)


def limit_buy(symbol: str, price: str, quantity: str = "1") -> Proposal:
    return Proposal(
        symbol=symbol,
        side=Side.BUY,
        quantity=Decimal(quantity),
        order_type=OrderType.LIMIT,
        limit_price=Decimal(price),
        market_hours=MarketHours.REGULAR_HOURS,
    )


@dataclass
class Desk:
    guard: Guard
    ledger: Ledger
    clock: SteppedClock
    venue: VenueClient
    rh: Robinhood
    account: str
    port: Venue

    @property
    def executor(self) -> OrderExecutor:
        return self.port.equity.orders

    @property
    def reader(self) -> AccountReader:
        return self.port.equity.account

    def step(self, seconds: float) -> None:
        self.clock.advance(timedelta(seconds=seconds))

    async def settled(self, outcome: Outcome, *, seconds: float = 5) -> FilingStatus:
        """``outcome``'s filing status once the venue's clock has run ``seconds`` (a market
        order at the venue, or on its engine, fills within them) and a reconciler pass has
        booked it."""
        self.step(seconds)
        await self.guard.reconcile()
        return self.ledger.filing(outcome.filing_id).status

    def guard_with(self, config: PolicyConfig, **extra: Any) -> Guard:
        """Another guard on the same ledger, broker and clock, under ``config``."""
        return Guard(
            **extra,
            policy=config,
            ledger=self.ledger,
            venue=self.port,
            account=self.account,
            clock=self.clock,
        )

    def quote(self, symbol: str) -> dict[str, Any]:
        data = self.venue.data("get_equity_quotes", {"symbols": [symbol]})
        result: dict[str, Any] = data["results"][0]["quote"]
        return result


@asynccontextmanager
async def desk(
    tmp_path: Path,
    *,
    config: PolicyConfig | None = None,
    live: bool = False,
    ledger_url: str | None = None,
    venue: dict[str, Any] | None = None,
    grace: timedelta = timedelta(minutes=2),
    record_clock: SteppedClock | None = None,
    rest: dict[str, Any] | None = None,
) -> AsyncIterator[Desk]:
    """``record_clock``: the ledger's own clock (a run's wall time), when it is not the
    venue's. ``rest``:
    live, the venue's REST rail too, on a key the sandbox issued (the ``CryptoRest``
    arguments to change: ``now``, ``transport``)."""
    rules = config or policy()
    clock = SteppedClock(start=START)
    settings: dict[str, Any] = {"port": 0, "seed": 7, **(venue or {})}
    with (
        SandboxServer(SandboxConfig(**settings), clock=clock) as sandbox,
        VenueClient(sandbox.base_url) as client,
    ):
        client.sign_in()
        token_file = tmp_path / "desk-tokens.json"
        write_minted(client, token_file, expires_at=None)
        url = ledger_url or f"sqlite:///{tmp_path / 'desk-ledger.db'}"
        async with AsyncExitStack() as stack:
            ledger = stack.enter_context(open_ledger(url, clock=record_clock or clock))
            with anyio.fail_after(BOUND_S):
                rh = await stack.enter_async_context(
                    connect(Config(url=client.mcp_url, token_file=token_file), clock=clock)
                )
            account = account_number(client)
            port: Venue
            if live:
                crypto_rest = None
                if rest is not None:
                    issued = client.admin("crypto_api_keys", {})
                    owner_testkit.SECRETS.add(issued["private_key"])
                    key = ApiKey(Secret(issued["api_key"]), Secret(issued["private_key"]))
                    crypto_rest = await stack.enter_async_context(
                        CryptoRest(key=key, base_url=client.base_url, **rest)
                    )
                port = RobinhoodVenue.through(rh, clock=clock, crypto_rest=crypto_rest)
            else:
                port = PaperVenue.for_policy(rh, ledger.engine, rules, clock=clock, account=account)
            guard = await stack.enter_async_context(
                Guard.open(
                    policy=rules,
                    ledger=ledger,
                    venue=port,
                    account=account,
                    clock=clock,
                    grace=grace,
                )
            )
            yield Desk(guard, ledger, clock, client, rh, account, port)

"""The account's turn holds whoever places: ``ordergate order`` processes, agent processes
(``ordergate agent run --once``) and gateway replicas, all placing into one paper account at
once, never leave more than ``max_open_orders`` open orders or ``max_positions`` positions,
and every attempt ends placed or refused with a reason, on a ledger that verifies.

On Postgres: four command lines, two agents and two replicas (sealed custody, behind
HAProxy) on one ledger; on one SQLite file: the command lines and agents alone. Every process
is one of the account's own (the embedded sandbox and the replicas' venue share its seed, so
its account number), its positions and orders in the paper book the venue's engine keeps in
the ledger's database.

Before the race the account holds SPY and has two SPY limit buys resting, so a SPY limit buy
is never stopped by ``max_positions`` (it adds to a position held): the limit buys race for
the one open order left, the market buys of new symbols for the one position left (while
the open order is left: ``max_open_orders`` counts every order). The agents target every
symbol they buy, SPY at its weight, so neither sells what the other bought: what was held at
once is what is held at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp_http_testkit import McpSession
from owner_testkit import apply_policy
from replica_kit import replica_set
from sqlalchemy import text

from ordergate.core import OrderType, RealtimeClock, Side, SteppedClock, TimeInForce
from ordergate.ledger import FilingStatus, open_ledger
from ordergate.sandbox import SandboxConfig, build_sandbox

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
SEED = 0  # the embedded sandbox's
MAX_OPEN = 3
MAX_POSITIONS = 2
RACE_BOUND_S = 240.0  # eight interpreters importing at once on a loaded two-core machine
CENT = Decimal("0.01")
POLICY = f"""
mode = "paper"
approval = "never"

[limits]
max_order_usd = "100000"
max_daily_usd = "1000000"
max_orders_per_day = 500
max_open_orders = {MAX_OPEN}
max_positions = {MAX_POSITIONS}
max_position_pct = "100"
price_collar_bps = 1000
# Every process sends its own order; the caps are what this weighs.
duplicate_window_s = 0
max_orders_per_minute = 1000
max_account_orders_per_minute = 1000

[symbols]
allow = ["*"]

[orders]
types = ["market", "limit"]

[paper]
starting_cash_usd = "100000"
"""
# Both agents: four new symbols each, against the one position left; SPY within its band.
AGENT_TARGETS = {"SPY": "1", "VTI": "10", "QQQ": "10", "IWM": "10", "DIA": "10"}
AGENT_NEW = {"VTI", "QQQ", "IWM", "DIA"}
PLACED = {FilingStatus.FILLED, FilingStatus.SUBMITTED}


def _resting_limit() -> str:
    """A SPY limit buy 2 % under the bid at the open: it rests (and is inside the collar)."""
    quote = build_sandbox(SandboxConfig(seed=SEED), clock=SteppedClock(start=OPEN))
    bid = quote.venue.market.quote("SPY").bid_price
    return str((bid * Decimal("0.98")).quantize(CENT))


@dataclass
class Started:
    name: str
    process: subprocess.Popen[bytes]
    out: Path
    err: Path


class Processes:
    """Command lines started at once; each one's output to files (never an undrained pipe)."""

    def __init__(self, tmp_path: Path, home: Path, db_url: str) -> None:
        self.tmp_path = tmp_path
        self.db_url = db_url
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("ORDERGATE_") and not key.startswith("COV_")
        }
        self.env.update(ORDERGATE_HOME=str(home), ORDERGATE_SANDBOX_START=OPEN.isoformat())
        self.started: list[Started] = []

    def start(self, name: str, *args: str) -> Started:
        out, err = self.tmp_path / f"{name}.out", self.tmp_path / f"{name}.err"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "ordergate", *args, "--sandbox", "--db", self.db_url],
                env=self.env,
                stdout=stdout,
                stderr=stderr,
            )
        started = Started(name, process, out, err)
        self.started.append(started)
        return started

    def order(self, name: str, *args: str) -> Started:
        return self.start(name, "order", *args, "--identity", name, "--json")

    def agent(self, name: str) -> Started:
        config = self.tmp_path / f"{name}.toml"
        lines = [f'identity = "{name}"', 'sessions = ["regular"]', "[rebalance.targets]"]
        lines += [f'{symbol} = "{weight}"' for symbol, weight in AGENT_TARGETS.items()]
        config.write_text("\n".join(lines) + "\n")
        return self.start(name, "agent", "run", "--once", "--config", str(config))

    def wait_all(self, deadline: float) -> dict[str, int]:
        """Each process's exit code, waited for within ``deadline`` (killed past it)."""
        codes: dict[str, int] = {}
        for started in self.started:
            try:
                codes[started.name] = started.process.wait(
                    timeout=max(0.1, deadline - time.monotonic())
                )
            except subprocess.TimeoutExpired:
                started.process.kill()
                started.process.wait(timeout=10)
                raise AssertionError(
                    f"{started.name} did not finish: {_tail(started.err)}"
                ) from None
        return codes

    def stop(self) -> None:
        for started in self.started:
            if started.process.poll() is None:
                started.process.kill()
                started.process.wait(timeout=10)


def _tail(path: Path) -> str:
    return path.read_bytes()[-2000:].decode(errors="replace")


def _order_ended(started: Started, code: int) -> str:
    """What an ``ordergate order`` process said: its filing's id, or ``account_busy``."""
    if code == 3 and "account_busy" in started.err.read_text():
        return "account_busy"  # nothing filed: said on stderr, exit 3
    assert code in (0, 3), f"{started.name} exit {code}: {_tail(started.err)}"
    body = json.loads(started.out.read_text().strip().splitlines()[-1])
    assert body["accepted"] is (code == 0)
    assert code == 0 or body["reasons"], body
    filing_id: str = body["filing_id"]
    return filing_id


@dataclass(frozen=True)
class Ledgered:
    open_orders: int
    positions: set[str]
    filings: int
    refused_by_caps: int


def _check_ledger(db_url: str, account: str) -> Ledgered:
    """The ledger verifies; every filing ended placed (filled, or resting) or refused with a
    reason; what is open and what is held, from the record."""
    with open_ledger(db_url, clock=RealtimeClock(), create=False) as ledger:
        assert ledger.verify().ok
        with ledger.engine.connect() as db:
            ids = [row[0] for row in db.execute(text("SELECT id FROM filings"))]
        positions: set[str] = set()
        caps = 0
        for filing_id in ids:
            record = ledger.filing(filing_id)
            assert record.account == account
            if record.status in PLACED:
                if record.status is FilingStatus.FILLED:
                    positions.add(record.terms["symbol"])
                continue
            assert record.status is FilingStatus.REFUSED, record
            said = [e.detail.get("reasons") for e in ledger.events(record.id) if e.detail]
            assert record.reasons or any(said), record
            caps += bool({"max_open_orders", "max_positions"} & set(record.reasons))
        return Ledgered(len(ledger.open_filings(account)), positions, len(ids), caps)


def _account() -> str:
    venue = build_sandbox(SandboxConfig(seed=SEED), clock=SteppedClock(start=OPEN)).venue
    (account,) = [a.account_number for a in venue.accounts.all() if a.agentic_allowed]
    return account


def _race_commands(processes: Processes, limit: str) -> None:
    """Market buys of two new symbols and two resting SPY limit buys from command lines, and
    two agents' ticks."""
    processes.order("cli-1", "AAPL", "buy", "--qty", "1")
    processes.order("cli-2", "MSFT", "buy", "--qty", "1")
    for n in (3, 4):
        processes.order(f"cli-{n}", "SPY", "buy", "--qty", "1", "--type", "limit", "--limit", limit)
    for n in (1, 2):
        processes.agent(f"agent-{n}")


def _seed(home: Path, db_url: str, limit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the race, in this process through the same guard a command line opens (on a
    market clock this test steps): SPY bought and filled on the paper venue's engine, then
    two SPY limit buys resting."""
    from ordergate.core import SecurityClock
    from ordergate.policy import Proposal
    from ordergate.runtime import Settings, open_guard

    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    settings = Settings.resolve(db=db_url, sandbox=True, sandbox_start=OPEN.isoformat())

    async def seed() -> list[FilingStatus]:
        clock = SteppedClock(start=OPEN)
        async with open_guard(settings, clock=clock, security_clock=SecurityClock()) as running:
            guard = running.guard
            held = await guard.submit(
                Proposal(symbol="SPY", side=Side.BUY, quantity=Decimal(1)), identity="seed"
            )
            clock.advance(timedelta(seconds=2))  # the engine fills it as the venue would
            await guard.reconcile()
            resting = Proposal(
                symbol="SPY",
                side=Side.BUY,
                quantity=Decimal(1),
                order_type=OrderType.LIMIT,
                limit_price=Decimal(limit),
                time_in_force=TimeInForce.GTC,
            )
            rests = [(await guard.submit(resting, identity="seed")).status for _ in range(2)]
            return [guard.ledger.filing(held.filing_id).status, *rests]

    assert anyio.run(seed) == [FilingStatus.FILLED, *[FilingStatus.SUBMITTED] * 2]


@dataclass(frozen=True)
class AgentSaid:
    """What an agent's tick journalled: the new symbols it meant to buy, how many intents it
    formed (its decision's word) and how many it accounted for (an order, or why not sent)."""

    buys: set[str]
    formed: int
    accounted: int


def _agent_said(db_url: str, name: str) -> AgentSaid:
    with open_ledger(db_url, clock=RealtimeClock(), create=False) as ledger:
        entries = [e for e in ledger.journal.entries() if e.identity == name]
    (decision,) = [e for e in entries if e.kind == "agent.decision"]
    intents: list[str] = decision.detail["intents"]
    said = [e for e in entries if e.kind in ("agent.order", "agent.dropped")]
    return AgentSaid(
        buys={intent.removeprefix("buy ") for intent in intents if intent.startswith("buy ")},
        formed=len(intents) + decision.detail["dropped"],
        accounted=len(said),
    )


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    place = tmp_path / "home"
    place.mkdir(mode=0o700)
    (place / "policy.toml").write_text(POLICY)
    (place / "policy.toml").chmod(0o600)
    yield place


@pytest.mark.req("wall.turn.processes")
def test_command_lines_and_agents_on_one_sqlite_file_keep_the_accounts_caps(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_url = f"sqlite:///{tmp_path / 'ledger.db'}"
    apply_policy(db_url, POLICY)
    limit = _resting_limit()
    _seed(home, db_url, limit, monkeypatch)
    processes = Processes(tmp_path, home, db_url)
    try:
        _race_commands(processes, limit)
        codes = processes.wait_all(time.monotonic() + RACE_BOUND_S)
    finally:
        processes.stop()
    ended = {s.name: _order_ended(s, codes[s.name]) for s in processes.started if "cli" in s.name}
    assert {codes[f"agent-{n}"] for n in (1, 2)} == {0}
    record = _check_ledger(db_url, _account())
    agents_said = [_agent_said(db_url, f"agent-{n}") for n in (1, 2)]
    _assert_caps_held(record, ended, agents_said)


@pytest.mark.req("policy.duplicate-order")
def test_two_command_lines_sending_one_order_at_once_file_it_once_and_refuse_the_duplicate(
    tmp_path: Path, home: Path
) -> None:
    """The duplicate read (the recent filings) is made in the account's turn: of two
    processes sending the same order at once, the second reads the first's filing."""
    policy = POLICY.replace("duplicate_window_s = 0", "duplicate_window_s = 30")
    (home / "policy.toml").write_text(policy)
    db_url = f"sqlite:///{tmp_path / 'ledger.db'}"
    apply_policy(db_url, policy)
    processes = Processes(tmp_path, home, db_url)
    try:
        for n in (1, 2):
            processes.start(f"cli-{n}", "order", "SPY", "buy", "--qty", "1", "--json")
        codes = processes.wait_all(time.monotonic() + RACE_BOUND_S)
    finally:
        processes.stop()
    assert sorted(codes.values()) == [0, 3], codes
    bodies = [json.loads(s.out.read_text().strip().splitlines()[-1]) for s in processes.started]
    said = sorted((body["status"], tuple(body["reasons"])) for body in bodies)
    assert said == [("refused", ("duplicate_order",)), ("submitted", ())]


def _assert_caps_held(
    record: Ledgered, ended: dict[str, str], agents_said: list[AgentSaid]
) -> None:
    assert record.open_orders <= MAX_OPEN
    assert len(record.positions) <= MAX_POSITIONS and "SPY" in record.positions
    # Nothing lost: one filing per order a command line filed (or account_busy, nothing
    # filed), and each agent said what became of each of its intents.
    filed = [value for value in ended.values() if value != "account_busy"]
    assert len(set(filed)) == len(filed)
    # Each agent meant to buy the new symbols not yet held when it looked (another's buy may
    # have filled first, leaving that symbol at its target), and said what became of each.
    for said in agents_said:
        assert said.buys and said.buys <= AGENT_NEW, said
        assert said.accounted == said.formed, said
    # More orders were sent than the caps let through: the race was one.
    assert record.filings >= 3 + len(filed)
    assert record.refused_by_caps


def _mcp_order(url: str, token: str, arguments: dict[str, Any]) -> dict[str, Any]:
    session = McpSession(url, token)
    try:
        message = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "place_equity_order", "arguments": arguments},
        }
        with httpx2.Client(timeout=RACE_BOUND_S) as http:
            answer = http.post(url + "/mcp", json=message, headers=session.headers)
    finally:
        session.close()
    assert answer.status_code == 200, answer.text
    structured: dict[str, Any] = answer.json()["result"]["structuredContent"]
    return structured


def _limit_args(account: str, limit: str) -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": "SPY",
        "side": "buy",
        "type": "limit",
        "quantity": "1",
        "limit_price": limit,
        "time_in_force": "gtc",
    }


def _market_args(account: str, symbol: str) -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": symbol,
        "side": "buy",
        "type": "market",
        "quantity": "1",
    }


@pytest.mark.req("wall.turn.replicas")
def test_command_lines_agents_and_replicas_on_one_postgres_ledger_keep_the_accounts_caps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = _resting_limit()
    account = _account()
    with replica_set(
        tmp_path, POLICY, register_limit=10, replicas_n=2, seed=SEED, reconcile_s=60
    ) as replicas:
        token = replicas.connect()
        _seed(replicas.home, replicas.db_url, limit, monkeypatch)
        processes = Processes(tmp_path, replicas.home, replicas.db_url)
        sent = [
            (replicas.replicas[0].url, _limit_args(account, limit)),
            (replicas.replicas[1].url, _limit_args(account, limit)),
            (replicas.replicas[0].url, _market_args(account, "MSFT")),
            (replicas.replicas[1].url, _market_args(account, "NVDA")),
        ]
        try:
            deadline = time.monotonic() + RACE_BOUND_S
            _race_commands(processes, limit)
            with ThreadPoolExecutor(len(sent)) as pool:
                answers = list(pool.map(lambda pair: _mcp_order(pair[0], token, pair[1]), sent))
            codes = processes.wait_all(deadline)
        finally:
            processes.stop()
        ended = {
            s.name: _order_ended(s, codes[s.name]) for s in processes.started if "cli" in s.name
        }
        assert {codes[f"agent-{n}"] for n in (1, 2)} == {0}
        for answer in answers:
            # Placed, or refused with its code (a refused filing carries its reasons).
            assert "data" in answer or answer["error"]["code"], answer
        record = _check_ledger(replicas.db_url, account)
        agents_said = [_agent_said(replicas.db_url, f"agent-{n}") for n in (1, 2)]
    _assert_caps_held(record, ended, agents_said)

"""Three ``ordergate`` gateway replicas on one Postgres and one Redis, behind a real HAProxy
(round robin): they share one cap, one record, one set of sessions, one pause switch, one
rate limit and one tool list, and a replica killed mid-order loses nothing.

Runs in CI on the machine's Postgres and Redis (``.ci/run``); without
``ORDERGATE_TEST_PG_URL`` and ``ORDERGATE_TEST_REDIS_URL`` it skips and says how to run it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp_http_testkit import McpSession
from owner_testkit import PASSPHRASE, channel_act, owner_channel
from replica_kit import BOUND_S, OPEN, Replicas, replica_set
from sqlalchemy import select

from ordergate.core import OrderState, RealtimeClock, SteppedClock
from ordergate.gateway._owner import identity_of
from ordergate.gateway._schema import connections
from ordergate.ledger import FilingStatus, Ledger, open_ledger
from ordergate.owner import Delays, DelaySettings
from ordergate.sandbox import SandboxConfig, build_sandbox
from ordergate.sandbox.venue._equity import equity_desk

CLIENTS = 30
PER_CONNECTION = 10
ACCEPTED = 12  # the daily cap holds twelve of the race's orders and a half
MAX_OPEN = 5  # the gateway's open proposals per connection (MAX_OPEN_PROPOSALS)
PAUSE_BOUND_S = 1.0
CLI_BOUND_S = 120.0  # a command line's start on a loaded machine, not the pause itself
CENT = Decimal("0.01")


def _policy(limit: Decimal, daily: Decimal | None = None) -> str:
    """The replicas' policy: orders up to twice ``limit``, the rolling 24 h spend capped at
    ``daily`` (by default what twelve and a half orders at ``limit`` spend)."""
    daily = limit * ACCEPTED + limit / 2 if daily is None else daily
    return f"""
mode = "live"
real_money = true
approval = "never"

[limits]
max_order_usd = "{limit * 2}"
max_daily_usd = "{daily}"
max_orders_per_day = 500
max_open_orders = 100
max_position_pct = "100"
# The clients of one connection send the same order at once: the daily cap is what this
# weighs (duplicates and the order rate are pinned in test_gateway_pace).
duplicate_window_s = 0
max_orders_per_minute = 1000
max_account_orders_per_minute = 1000

[symbols]
allow = ["SPY"]
"""


class Hold:
    """A test hook on the venue's equity desk: while ``armed``, a place call creates its
    order and then waits for ``release`` before answering (``placed`` says it is there)."""

    def __init__(self) -> None:
        self.armed = False
        self.placed = threading.Event()
        self.release = threading.Event()


@dataclass
class Cluster:
    replicas: Replicas
    hold: Hold
    tokens: list[str]
    """One access token per connection (each its own identity on the record)."""
    connection_ids: list[str]
    """The connection of each token, in the same order."""
    limit: Decimal
    """The limit price of every race order: 1 % under the bid, so it rests at the venue."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp_path = tmp_path_factory.mktemp("replicas")
    quote = build_sandbox(SandboxConfig(seed=7), clock=SteppedClock(start=OPEN))
    limit = (quote.venue.market.quote("SPY").bid_price * Decimal("0.99")).quantize(CENT)
    with replica_set(tmp_path, _policy(limit), register_limit=3) as replicas:
        hold = Hold()
        desk = equity_desk(replicas.venue.venue)
        place = desk.place

        def held_place(args: Any) -> Any:
            placed = place(args)
            if hold.armed:
                hold.armed = False
                hold.placed.set()
                hold.release.wait(BOUND_S)
            return placed

        desk.place = held_place  # type: ignore[method-assign]
        tokens: list[str] = []
        ids: list[str] = []
        ledger = _ledger(replicas)
        try:
            for _ in range(CLIENTS // PER_CONNECTION):
                tokens.append(replicas.connect())
                (new,) = set(_connection_ids(ledger)) - set(ids)
                ids.append(new)
        finally:
            ledger.close()
        yield Cluster(replicas, hold, tokens, ids, limit)


def _between_polls() -> None:
    """The bounded pause between two reads of state another process changes."""
    threading.Event().wait(0.05)


def _account(cluster: Replicas) -> str:
    (account,) = [a.account_number for a in cluster.venue.venue.accounts.all() if a.agentic_allowed]
    return account


def _ledger(cluster: Replicas) -> Ledger:
    return open_ledger(cluster.db_url, clock=SteppedClock(start=OPEN))


def _answer(result: dict[str, Any]) -> dict[str, Any]:
    """A filing's data (refused ones come as errors carrying their filing), or the code of
    a refusal that filed nothing."""
    structured: dict[str, Any] = result["structuredContent"]
    if "data" in structured:
        data: dict[str, Any] = structured["data"]
        return data
    return {"refused": structured["error"]["code"]}


def _post(url: str, session: McpSession, message: dict[str, Any]) -> httpx2.Response:
    """One message of ``session`` sent straight to a replica, past the load balancer."""
    with httpx2.Client(timeout=BOUND_S) as http:
        return http.post(url + "/mcp", json=message, headers=session.headers)


def _tool_at(url: str, session: McpSession, name: str, arguments: dict[str, Any]) -> Any:
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    answer = _post(url, session, message)
    assert answer.status_code == 200, answer.text
    return _answer(answer.json()["result"])


def _limit_buy(account: str, limit: str) -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": "SPY",
        "side": "buy",
        "type": "limit",
        "quantity": "1",
        "limit_price": limit,
        "time_in_force": "gtc",
    }


def _market_buy(account: str) -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": "SPY",
        "side": "buy",
        "type": "market",
        "dollar_amount": "5",
    }


@pytest.mark.req("gateway.replicas.sessions")
def test_a_session_begun_through_one_replica_continues_through_every_other(
    cluster: Cluster,
) -> None:
    replicas = cluster.replicas
    session = McpSession(replicas.url, cluster.tokens[0])
    stranger = McpSession(replicas.url, cluster.tokens[1])
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    try:
        assert session.handshake.status_code == 200
        listed = [_post(replica.url, session, listing) for replica in replicas.replicas]
        # Another principal naming the session is told it does not exist, on every replica.
        stranger.headers["mcp-session-id"] = session.headers["mcp-session-id"]
        refused = [_post(r.url, stranger, listing).status_code for r in replicas.replicas]
    finally:
        session.close()
        stranger.close()
    for answer in listed:
        assert answer.status_code == 200, answer.text
        assert answer.headers["mcp-session-id"] == session.headers["mcp-session-id"]
        names = {tool["name"] for tool in answer.json()["result"]["tools"]}
        assert {"place_equity_order", "gate_how"} <= names
    assert refused == [404] * len(replicas.replicas)


@pytest.mark.req("gateway.replicas.shared-limits")
def test_rate_limits_and_tool_lists_are_shared_by_every_replica(cluster: Cluster) -> None:
    import redis

    replicas = cluster.replicas
    # Three registrations (one per connection) went through three replicas in turn: a fourth
    # is over the shared limit of three, whichever replica it reaches.
    with httpx2.Client(timeout=BOUND_S) as http:
        refused = [replicas.register(http).status_code for _ in replicas.replicas]
    assert refused == [429] * len(replicas.replicas)
    for token in cluster.tokens:
        session = McpSession(replicas.url, token)
        try:
            assert "gate_how" in session.tools()
        finally:
            session.close()
    ledger = _ledger(replicas)
    try:
        with ledger.engine.connect() as db:
            ids = [str(row.id) for row in db.execute(select(connections.c.id))]
    finally:
        ledger.close()
    client = redis.Redis.from_url(replicas.redis_url)
    try:
        kept = [
            client.exists("ordergate:tools:" + hashlib.sha256(cid.encode()).hexdigest())
            for cid in ids
        ]
    finally:
        client.close()
    assert len(ids) == len(cluster.tokens)
    assert kept == [1] * len(ids)


@pytest.mark.req("gateway.replicas.one-cap")
def test_thirty_clients_through_three_replicas_never_pass_a_cap_and_each_filing_is_on_record(
    cluster: Cluster,
) -> None:
    replicas, limit = cluster.replicas, cluster.limit
    account = _account(replicas)
    desk = equity_desk(replicas.venue.venue)
    owners = [token for token in cluster.tokens for _ in range(PER_CONNECTION)]
    sessions = [McpSession(replicas.url, token) for token in owners]
    start = threading.Barrier(CLIENTS)

    def race(session: McpSession) -> dict[str, Any]:
        start.wait(BOUND_S)
        return _answer(session.call("place_equity_order", _limit_buy(account, str(limit))))

    try:
        with ThreadPoolExecutor(CLIENTS) as pool:
            answers = list(pool.map(race, sessions))
    finally:
        for session in sessions:
            session.close()

    # Every answer is a filing on the record, or a refusal before anything was filed.
    filed = [answer for answer in answers if "filing_id" in answer]
    too_many = [answer for answer in answers if answer.get("refused") == "TOO_MANY_OPEN"]
    assert len(filed) + len(too_many) == CLIENTS, answers
    ledger = _ledger(replicas)
    try:
        identities = {identity_of(cid) for cid in _connection_ids(ledger)}
        on_record = {
            str(r.id): r for who in identities for r in ledger.filings_of(who, limit=CLIENTS * 2)
        }
    finally:
        ledger.close()
    assert sorted(on_record) == sorted(answer["filing_id"] for answer in filed)
    for answer in filed:
        assert on_record[answer["filing_id"]].status.value == answer["status"], answer
    accepted = [on_record[a["filing_id"]] for a in filed if a["status"] == "submitted"]
    refused = [on_record[a["filing_id"]] for a in filed if a["status"] == "refused"]
    assert len(accepted) + len(refused) == len(filed), filed
    # The daily cap holds exactly what it holds; no connection has more than MAX_OPEN open.
    assert len(accepted) == ACCEPTED
    assert sum((r.notional for r in accepted), Decimal(0)) == limit * ACCEPTED
    assert all("max_daily_usd" in r.reasons for r in refused), [r.reasons for r in refused]
    per_identity = Counter(r.identity for r in accepted)
    assert max(per_identity.values()) <= MAX_OPEN, per_identity
    # The venue received exactly what was accepted: one order per accepted filing, by ref_id.
    assert sorted(str(o.ref_id) for o in desk.orders(account)) == sorted(
        str(r.id) for r in accepted
    )


@pytest.mark.req("gateway.replicas.pause")
def test_ordergate_pause_refuses_new_orders_on_every_replica_within_a_second(
    cluster: Cluster,
) -> None:
    replicas = cluster.replicas
    account = _account(replicas)
    session = McpSession(replicas.url, _roomiest(cluster))
    try:
        paused = subprocess.run(
            [sys.executable, "-m", "ordergate", "pause", "--db", replicas.db_url, "--reason", "x"],
            capture_output=True,
            env={"ORDERGATE_HOME": str(replicas.home), "PATH": os.environ.get("PATH", "")},
            timeout=CLI_BOUND_S,
            check=False,
        )
        assert paused.returncode == 0, paused.stderr
        deadline = time.monotonic() + PAUSE_BOUND_S
        answers = {}
        for replica in replicas.replicas:
            while True:
                answer = _tool_at(replica.url, session, "place_equity_order", _market_buy(account))
                if "paused" in answer.get("reasons", ()):
                    answers[replica.port] = answer
                    break
                assert time.monotonic() < deadline, f"replica {replica.port} still takes orders"
    finally:
        session.close()
        ledger = _ledger(replicas)
        try:
            ledger.controls.resume(by="owner")
        finally:
            ledger.close()
    assert [a["status"] for a in answers.values()] == ["refused"] * len(replicas.replicas)


WORKING = 20
KILL_POLICY = _policy(Decimal(50_000), Decimal(1_000_000))


@pytest.mark.req("controls.pause-cancels-working-orders")
def test_pause_cancel_open_cancels_twenty_working_orders_filed_through_two_replicas(
    tmp_path: Path,
) -> None:
    with replica_set(tmp_path, KILL_POLICY, register_limit=10) as replicas:
        account = _account(replicas)
        desk = equity_desk(replicas.venue.venue)
        bid = replicas.venue.venue.market.quote("SPY").bid_price
        limit = (bid * Decimal("0.99")).quantize(CENT)
        # Five open orders at most per connection (MAX_OPEN): four connections file twenty,
        # alternately through the first and the second replica; a fifth keeps ordering.
        sessions = [McpSession(replicas.url, replicas.connect()) for _ in range(WORKING // 5 + 1)]
        looping, filers = sessions[-1], sessions[:-1]
        try:
            for n in range(WORKING):
                replica = replicas.replicas[n % 2]
                buy = _limit_buy(account, str(limit - n * CENT))
                answer = _tool_at(replica.url, filers[n // 5], "place_equity_order", buy)
                assert answer["status"] == "submitted", answer
            working = desk.orders(account)
            assert len(working) == WORKING
            assert not any(o.state.is_terminal for o in working)
            # An agent keeps ordering through the second replica while the owner pulls the
            # switch through the third one's owner channel.
            stop = threading.Event()
            looped: list[dict[str, Any]] = []

            def loop() -> None:
                n = 0
                while not stop.is_set() and n < 200:
                    n += 1
                    buy = _limit_buy(account, str(limit - (WORKING + n % 5) * CENT))
                    looped.append(
                        _tool_at(replicas.replicas[1].url, looping, "place_equity_order", buy)
                    )

            agent = threading.Thread(target=loop)
            agent.start()
            try:
                paused = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "ordergate",
                        "pause",
                        "--cancel-open",
                        "--reason",
                        "runaway agent",
                        "--owner-socket",
                        str(replicas.replicas[2].owner_socket),
                    ],
                    capture_output=True,
                    text=True,
                    env={"ORDERGATE_HOME": str(replicas.home), "PATH": os.environ.get("PATH", "")},
                    timeout=CLI_BOUND_S,
                    check=False,
                )
            finally:
                stop.set()
                agent.join(BOUND_S)
            assert paused.returncode == 0, paused.stderr
            at_pause = desk.orders(account)
            after = _tool_at(replicas.replicas[0].url, filers[0], "place_equity_order", buy)
            assert "paused" in after.get("reasons", ()), after
        finally:
            for session in sessions:
                session.close()
        # Every order at the venue is cancelled: the twenty and any the looping agent had
        # placed before the pause; nothing reached the venue after it.
        assert len(at_pause) >= WORKING
        assert {o.state for o in at_pause} == {OrderState.CANCELLED}
        assert len(desk.orders(account)) == len(at_pause)
        assert any("paused" in a.get("reasons", ()) for a in looped), looped[-3:]
        ledger = _ledger(replicas)
        try:
            kills = {
                str(e.filing_id): e.detail["outcome"]
                for e in ledger.journal.entries(limit=1000)
                if e.kind == "cancel" and e.why.startswith("kill switch")
            }
            assert ledger.open_filings(account) == []
        finally:
            ledger.close()
        assert {str(o.ref_id) for o in at_pause} <= set(kills)
        assert {kills[str(o.ref_id)] for o in at_pause} == {"cancelled"}
        assert f"{len(kills)} working orders ended" in paused.stdout


@pytest.mark.req("callers.revocable")
def test_a_revoked_trading_caller_token_is_refused_at_once_on_every_replica(
    cluster: Cluster,
) -> None:
    replicas = cluster.replicas
    first, *others = replicas.replicas
    ask = {
        "caller": "revoked-bot",
        "profile": "trader",
        "ttl_s": 3600,
        "connection": cluster.connection_ids[0],
    }
    # The owner set no delay for acts that loosen (the token is minted when asked for), and
    # puts the default back afterwards (a tightening: at once).
    ledger = _ledger(replicas)
    delays = Delays(ledger, clock=RealtimeClock())
    try:
        delays.ask(DelaySettings(loosen_delay=timedelta(0)), first=True)
        minted = channel_act(
            replicas.home, "token_mint", ask, PASSPHRASE, socket=first.owner_socket
        )
    finally:
        delays.ask(DelaySettings())
        ledger.close()
    assert minted.status_code == 200, minted.text
    token = minted.json()["token"]
    before = [_handshake(replica.url, token) for replica in replicas.replicas]
    # Revoked through the last replica; refused by the next request on each of them.
    with owner_channel(replicas.home, socket=others[-1].owner_socket) as owner:
        revoked = owner.post("/owner/connections/caller:revoked-bot/revoke", json={})
    after = [_handshake(replica.url, token) for replica in replicas.replicas]
    assert before == [200] * len(replicas.replicas)
    assert revoked.status_code == 200 and revoked.json()["revoked"] is True
    assert after == [401] * len(replicas.replicas)


def _handshake(url: str, token: str) -> int:
    session = McpSession(url, token)
    session.close()
    return session.handshake.status_code


@pytest.mark.req("gateway.replicas.killed-mid-order")
def test_a_replica_killed_mid_order_loses_nothing_another_adopts_its_order_by_ref_id(
    cluster: Cluster,
) -> None:
    replicas, hold = cluster.replicas, cluster.hold
    account = _account(replicas)
    desk = equity_desk(replicas.venue.venue)
    before = {str(o.ref_id) for o in desk.orders(account)}
    victim = replicas.replicas[0]
    session = McpSession(replicas.url, _roomiest(cluster))
    answers: list[object] = []

    def order() -> None:
        try:
            buy = _market_buy(account)
            answers.append(_tool_at(victim.url, session, "place_equity_order", buy))
        except httpx2.HTTPError as error:
            answers.append(error)

    hold.armed = True
    sender = threading.Thread(target=order)
    sender.start()
    try:
        assert hold.placed.wait(BOUND_S), "the place call never reached the venue"
        victim.kill()  # the order is at the venue; the replica never hears back
    finally:
        hold.release.set()
        sender.join(BOUND_S)
        session.close()
    assert len(answers) == 1 and isinstance(answers[0], httpx2.HTTPError), answers
    (ref_id,) = {str(o.ref_id) for o in desk.orders(account)} - before
    # Another replica's reconciler finds the filing in doubt and adopts the venue's order.
    deadline = time.monotonic() + BOUND_S
    ledger = _ledger(replicas)
    try:
        while not any(e.detail.get("adopted") for e in ledger.events(ref_id)):
            assert time.monotonic() < deadline, [e.detail for e in ledger.events(ref_id)]
            _between_polls()
        record, events = ledger.filing(ref_id), ledger.events(ref_id)
    finally:
        ledger.close()
    assert record.status is not FilingStatus.NOT_PLACED
    assert sum(1 for e in events if e.detail.get("adopted")) == 1
    assert [str(o.ref_id) for o in desk.orders(account)].count(ref_id) == 1


def _connection_ids(ledger: Ledger) -> list[str]:
    with ledger.engine.connect() as db:
        return [str(row.id) for row in db.execute(select(connections.c.id))]


def _roomiest(cluster: Cluster) -> str:
    """The token of the connection with the fewest open filings (it can still order)."""
    ledger = _ledger(cluster.replicas)
    try:
        open_now = Counter(r.identity for r in ledger.open_filings(_account(cluster.replicas)))
    finally:
        ledger.close()
    fewest = min(
        range(len(cluster.tokens)),
        key=lambda n: open_now.get(identity_of(cluster.connection_ids[n]), 0),
    )
    return cluster.tokens[fewest]

"""Seeding the history bench's ledgers: many ended filings, fast, on a chain that verifies.

The filings go through the ledger's own group commit (``Ledger.file_many``, a thousand per
transaction), so their chains, reservations and heads are the ledger's. What happened to
each afterwards is written in bulk on the same transaction's driver cursor, as the order path
would have left it, each account's filings taking ten endings in turn:

- eight filled (four buys at the ask, $100.01, four sells at the bid, $99.99, of one share of
  SPY, so the paper account ends flat), each with every row the bench's own order leaves
  (``History.own``: its account's orders are all of this ending, on no other account;
  ``tests/bench/test_bench_history.py`` proves the rows equal the real path's): events
  ``pending_approval``, ``approved``, ``submitted``, ``filled``, ``correct``; the
  reservation corrected to the fill; an approved approval, the journal's two entries (stage
  A by the agent, stage B by the owner who approved), the broker's order and its execution,
  and the paper book's rows of the engine's filled order (``_history_book``: its ended
  order, a sale's closed trade, the book's counters and cash carried past them);
- one denied: ``pending_approval``, ``denied``, ``release``; a denied approval;
- one not placed (no answer, then not found at the broker): ``pending_approval``,
  ``approved``, ``unanswered``, ``not_placed``, ``release``.

The events chain is computed here as ``Ledger.record_status`` would (the same body and hash
functions), continuing from the ledger's events head, and the seeded ledger is verified
before anything is measured. The account's paper book must be open before the seed (the
bench opens it: ``_history.open_book``); the other accounts' books get their ended orders and
closed trades only (the bench never opens them). SQLite or Postgres.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import uuid4

from ordergate.bench._fixed_upstream import ASK, BID
from ordergate.bench._history_book import SeededBooks
from ordergate.core import MarketHours, OrderType, Side, TimeInForce, to_wire
from ordergate.execution import filing_terms, terms_sha256
from ordergate.ledger import (
    Filing,
    FilingRecord,
    Ledger,
    RollingCaps,
    canonical_json,
    chain_hash,
    event_body,
    to_units,
)
from ordergate.policy import Proposal
from ordergate.store import iso

__all__ = ["CHUNK", "History", "seed_history"]

CHUNK = 1000
_CAPS = RollingCaps(max_daily_usd=Decimal(10) ** 12, max_orders_per_day=10**9)
# The bench's market (``FixedUpstream``): a buy fills at the ask, a sell at the bid; a
# market buy holds the ask and 5 % slippage (in cents, up), a sell holds nothing; the venue
# prices a market buy at the same and a sell at the bid.
_PRICE = {"buy": ASK, "sell": BID}
_HOLD = {"buy": Decimal("105.02"), "sell": Decimal(0)}
_ESTIMATED = {"buy": _HOLD["buy"], "sell": BID}
_FILLED = timedelta(seconds=2)  # the engine fills a market order two seconds after it is placed
_ENDINGS = ("filled",) * 8 + ("denied", "not_placed")
_OWN = ("filled",)
_APPROVAL_TTL = timedelta(minutes=15)
_STEP = timedelta(hours=1)  # between chunks: the history spans days, long before the bench


@dataclass(frozen=True, slots=True)
class History:
    """Who the history belongs to: ``count`` filings on ``account`` by ``identity``, and as
    many spread over ``others`` other accounts and identities."""

    account: str
    identity: str
    count: int
    others: int = 10
    own: bool = False
    """The account's own orders alone, as the bench places them: every one filled, buys and
    sells in turn, nothing on other accounts (``others`` is not read)."""


def seed_history(
    ledger: Ledger,
    history: History,
    *,
    before: datetime,
    progress: Callable[[str], None] | None = None,
) -> int:
    """Write ``history`` into ``ledger``, every filing older than ``before`` - 2 days;
    returns the number of filings written."""
    say = progress or _stderr
    plan = [(history.account, history.identity)] * history.count
    if not history.own:
        plan += [
            (f"{history.account}-other-{index % history.others}", f"other-agent-{index % 7}")
            for index in range(history.count if history.others else 0)
        ]
    chunks = (len(plan) + CHUNK - 1) // CHUNK
    start = before - timedelta(days=2) - chunks * _STEP
    writer = _Writer(ledger, _OWN if history.own else _ENDINGS, history.account)
    for number in range(chunks):
        items = plan[number * CHUNK : (number + 1) * CHUNK]
        instant = start + number * _STEP
        writer.chunk(items, instant)
        if number % 20 == 19 or number == chunks - 1:
            say(f"bench history: seeded {min(len(plan), (number + 1) * CHUNK)}/{len(plan)}")
    writer.finish()
    if ledger.dialect == "postgresql":
        # A ledger that grew over a year has been analysed by autovacuum; one bulk-loaded a
        # moment ago has not, and the planner would weigh its tables as empty.
        with ledger.engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    return len(plan)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _proposal(side: Side) -> Proposal:
    return Proposal(
        symbol="SPY",
        side=side,
        quantity=Decimal(1),
        order_type=OrderType.MARKET,
        time_in_force=TimeInForce.GFD,
        market_hours=MarketHours.REGULAR_HOURS,
    )


class _Writer:
    """Writes chunks, carrying the events chain's head from one to the next."""

    def __init__(self, ledger: Ledger, endings: tuple[str, ...], account: str) -> None:
        self._ledger = ledger
        self._endings = endings
        head = ledger.event_head()
        self._seq = head.seq
        self._link = head.hash
        self._places: dict[str, int] = {}
        with ledger.engine.connect() as connection:
            self._books = SeededBooks(connection, account)

    def finish(self) -> None:
        """Carry the account's paper book past the seeded fills."""
        with self._ledger.engine.begin() as connection:
            self._books.carry(connection)

    def chunk(self, items: list[tuple[str, str]], instant: datetime) -> None:
        filings = []
        places = []
        for account, identity in items:
            place = self._places[account] = self._places.get(account, -1) + 1
            places.append(place)
            # Within each account: buys and sells in turn, the endings in turn.
            side = Side.BUY if place % 2 == 0 else Side.SELL
            terms = filing_terms(_proposal(side), account)
            filings.append((Filing(identity, terms, account), _HOLD[side.value]))
        results = self._ledger.file_many(filings, caps=_CAPS, now=instant)
        rows = _Rows(self._books)
        for place, result in zip(places, results, strict=True):
            record = result.record
            ending = self._endings[place % len(self._endings)]
            when = instant + timedelta(seconds=1)
            approval = rows.approval(
                record.id, terms_sha256(record.terms), when,
                "denied" if ending == "denied" else "approved",
            )  # fmt: skip
            expires = {"approval_id": approval, "expires_at": (when + _APPROVAL_TTL).isoformat()}
            self._event(rows, record.id, when, "status", "pending_approval", expires)
            if ending == "denied":
                self._event(rows, record.id, when, "status", "denied", {"reasons": ["denied"]})
                self._event(rows, record.id, when, "release", "", {})
                rows.reservation(record.id, "released", 0, 0)
                continue
            approved = {"approval_id": approval, "by": "owner"}
            self._event(rows, record.id, when, "status", "approved", approved)
            if ending == "not_placed":
                self._event(rows, record.id, when, "status", "unanswered", {})
                self._event(rows, record.id, when, "status", "not_placed", {"looked_up": True})
                self._event(rows, record.id, when, "release", "", {})
                rows.reservation(record.id, "released", 0, 0)
                continue
            order_id, execution_id = str(uuid4()), str(uuid4())
            side_text = str(record.terms["side"])
            price = _PRICE[side_text]
            filled_at = when + _FILLED
            # What a sell fills does not count toward the day's spend (``_reconciler``).
            spent = price if record.notional > 0 else Decimal(0)
            rows.decisions(record, side_text, when)
            self._event(rows, record.id, when, "status", "submitted", {"order_id": order_id})
            self._event(
                rows, record.id, filled_at, "status", "filled",
                {"order_id": order_id, "state": "filled", "cumulative_quantity": "1"},
            )  # fmt: skip
            correct = {"filled_notional": to_wire(spent)}
            self._event(rows, record.id, filled_at, "correct", "", correct)
            rows.reservation(record.id, "corrected", to_units(spent), 1)
            rows.filled(record.id, order_id, execution_id, price, filled_at)
            self._books.filled(
                record.account, str(record.id), order_id, execution_id, side_text, price,
                _ESTIMATED[side_text], when,
            )  # fmt: skip
        rows.write(self._ledger)

    def _event(
        self, rows: _Rows, filing_id: Any, when: datetime, kind: str, status: str, detail: Any
    ) -> None:
        self._seq += 1
        created_at = iso(when)
        text = canonical_json(detail)
        key = str(filing_id)
        digest = chain_hash(self._link, event_body(self._seq, key, created_at, kind, status, text))
        rows.events.append((self._seq, key, created_at, kind, status, text, self._link, digest))
        self._link = digest


class _Rows:
    """One chunk's rows, by table, written in one transaction."""

    def __init__(self, books: SeededBooks) -> None:
        self.books = books
        self.events: list[tuple[Any, ...]] = []
        self.reservations: list[tuple[Any, ...]] = []
        self.approvals: list[tuple[Any, ...]] = []
        self.orders: list[tuple[Any, ...]] = []
        self.executions: list[tuple[Any, ...]] = []
        self.decided: list[tuple[Any, ...]] = []
        self.ended: list[tuple[Any, ...]] = []

    def approval(self, filing_id: Any, digest: str, when: datetime, state: str) -> str:
        at = iso(when)
        approval_id = str(uuid4())
        self.approvals.append(
            (approval_id, str(filing_id), digest, at, iso(when + _APPROVAL_TTL), state, at,
             "owner")
        )  # fmt: skip
        return approval_id

    def decisions(self, record: FilingRecord, side: str, when: datetime) -> None:
        """The journal's entries of a placed order: stage A by the agent that filed it,
        stage B by the owner who approved it (``Guard._journal``)."""
        at, key, price = iso(when), str(record.id), to_wire(_PRICE[side])
        for identity, stage in ((record.identity, "estimate"), ("owner", "review")):
            detail = {
                "allowed": True, "notional": price, "price": price, "quantity": "1",
                "reasons": [], "reduces_position": side == "sell",
                "requires_approval": True, "stage": stage,
            }  # fmt: skip
            self.decided.append(
                (at, identity, key, f"policy_{stage}", "allowed", canonical_json(detail))
            )

    def reservation(self, filing_id: Any, state: str, units: int, ops: int) -> None:
        # Every seeded filing ends with its reservation settled: it is no longer open.
        self.reservations.append((state, units, ops, str(filing_id)))
        self.ended.append((str(filing_id),))

    def filled(
        self, filing_id: Any, order_id: str, execution_id: str, price: Decimal, when: datetime
    ) -> None:
        at, key, price_text = iso(when), str(filing_id), to_wire(price)
        self.orders.append((key, order_id, "filled", "1", price_text, at))
        self.executions.append((execution_id, key, order_id, "1", price_text, at, "fill"))

    def write(self, ledger: Ledger) -> None:
        with _cursor(ledger) as (cursor, dialect_sql):
            for sql, rows in (
                (_INSERT_EVENTS, self.events),
                (_UPDATE_RESERVATIONS, self.reservations),
                (_INSERT_APPROVALS, self.approvals),
                (_INSERT_ORDERS, self.orders),
                (_INSERT_EXECUTIONS, self.executions),
                (_INSERT_DECISIONS, self.decided),
                (_DELETE_OPEN, self.ended),
                *self.books.drain(),
            ):
                if rows:
                    cursor.executemany(dialect_sql(sql), rows)


_INSERT_EVENTS = (
    "INSERT INTO filing_events (seq, filing_id, created_at, kind, status, detail, prev_hash, "
    "hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPDATE_RESERVATIONS = (
    "UPDATE reservations SET state = ?, amount_units = ?, ops = ? WHERE filing_id = ?"
)


@contextmanager
def _cursor(ledger: Ledger) -> Iterator[tuple[Any, Callable[[str], str]]]:
    """The driver's cursor inside one transaction, and the statements in its parameter style
    (``?`` for sqlite3, ``%s`` for psycopg)."""
    with ledger.engine.begin() as connection:
        driver = connection.connection.driver_connection
        assert driver is not None
        cursor = driver.cursor()
        on_postgres = ledger.dialect == "postgresql"
        try:
            yield cursor, (lambda sql: sql.replace("?", "%s")) if on_postgres else str
        finally:
            cursor.close()


_DELETE_OPEN = "DELETE FROM open_filings WHERE filing_id = ?"
_INSERT_APPROVALS = (
    "INSERT INTO approvals (id, filing_id, terms_sha256, created_at, expires_at, state, "
    "decided_at, decided_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_ORDERS = (
    "INSERT INTO orders (ref_id, broker_order_id, state, cumulative_quantity, average_price, "
    "updated_at) VALUES (?, ?, ?, ?, ?, ?)"
)
_INSERT_EXECUTIONS = (
    "INSERT INTO executions (id, ref_id, broker_order_id, quantity, price, executed_at, "
    "basis_source) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_DECISIONS = (
    "INSERT INTO decisions (created_at, identity, filing_id, kind, why, detail) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)

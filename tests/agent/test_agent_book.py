"""The agent's book against the broker's: fills move it, a split re-bases it, anything else
halts buying."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from uuid import uuid4

from ordergate.agent import Book, Snapshot, session_signal
from ordergate.core import Side
from ordergate.ledger import Execution
from ordergate.policy import Position

AT = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
D = Decimal


def snap(cash: str, equity: str | None, **held: tuple[str, str]) -> Snapshot:
    return Snapshot(
        signal=session_signal(AT),
        equity=None if equity is None else D(equity),
        cash=D(cash),
        buying_power=D(cash),
        positions={s: Position(D(q), D(v)) for s, (q, v) in held.items()},
        quotes={},
        open_orders=0,
    )


def fill(quantity: str, price: str) -> Execution:
    return Execution(
        id=str(uuid4()),
        ref_id=uuid4(),
        broker_order_id="o",
        quantity=D(quantity),
        price=D(price),
        executed_at=AT,
    )


def test_fills_move_the_book_once_and_it_then_matches_the_broker() -> None:
    book = Book()
    book.book("SPY", Side.BUY, [fill("1", "100")])  # before adoption: ignored
    assert not book.reconcile(snap("1000", "1000")).halt_buying
    bought = fill("2", "100")
    book.book("SPY", Side.BUY, [bought, bought])
    check = book.reconcile(snap("800", "1000", SPY=("2", "200")))
    assert not check.halt_buying and check.notes == ()
    book.book("SPY", Side.SELL, [fill("1", "110")])
    holding = book.holding("SPY")
    assert holding is not None and holding.quantity == D(1) and holding.basis == D(100)
    assert not book.reconcile(snap("910", "1020", SPY=("1", "110"))).halt_buying


def test_a_split_re_bases_the_shares_and_keeps_the_basis_without_halting() -> None:
    book = Book()
    book.reconcile(snap("0", "1000", SPY=("4", "1000")))
    check = book.reconcile(snap("0", "1000", SPY=("8", "1000")))
    assert not check.halt_buying and check.splits == (("SPY", D(2)),)
    holding = book.holding("SPY")
    assert holding is not None and holding.quantity == D(8)
    assert holding.basis_per_share == D(125)  # 1000 paid for 8 shares, not 16


def test_shares_the_book_cannot_explain_or_a_nav_apart_halt_buying_once() -> None:
    book = Book()
    book.reconcile(snap("0", "1000", SPY=("4", "1000")))
    odd = book.reconcile(snap("0", "1000", SPY=("4.3", "1000")))
    assert odd.halt_buying and "the book holds 4, the broker 4.3" in odd.notes[0]
    assert not book.reconcile(snap("0", "1000", SPY=("4.3", "1000"))).halt_buying
    nav = book.reconcile(snap("0", "1100", SPY=("4.3", "1000")))
    assert nav.halt_buying and any(note.startswith("NAV") for note in nav.notes)
    assert book.reconcile(snap("0", None)).halt_buying
    empty = Book()
    assert empty.holding("SPY") is None
    assert empty.reconcile(snap("0", "0")).halt_buying is False


def test_cash_the_book_did_not_move_trips_the_nav_check_once() -> None:
    book = Book()
    assert not book.reconcile(snap("1000", "2000", SPY=("10", "1000"))).halt_buying
    assert book.cash == D(1000)
    book.book("SPY", Side.BUY, [fill("1", "100")])
    assert book.cash == D(900)
    # The broker's cash is $100 more than the book's fills leave: shares agree, NAV does not.
    check = book.reconcile(snap("1000", "2100", SPY=("11", "1100")))
    assert check.halt_buying
    assert check.notes == (
        "NAV: the broker says 2100, the book values 2000",
        "buying halts this tick",
    )
    assert book.cash == D(1000)
    assert not book.reconcile(snap("1000", "2100", SPY=("11", "1100"))).halt_buying


def test_half_the_shares_sold_by_someone_else_is_no_reverse_split() -> None:
    book = Book()
    assert not book.reconcile(snap("1000", "2000", SPY=("10", "1000"))).halt_buying
    # 1-for-2 in shares, but the cash moved: someone else sold, nothing split.
    check = book.reconcile(snap("1500", "2000", SPY=("5", "500")))
    assert check.halt_buying and check.splits == ()
    assert check.notes[0] == "SPY: the book holds 10, the broker 5"

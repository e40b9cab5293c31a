"""``ordergate bench history``: the seeded history is what the bench says it is (and verifies),
and a tiny run prints every case beside its baseline. No timing is asserted."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pg_testkit import PG_ENV, database, pg_server
from sqlalchemy import text
from typer.testing import CliRunner

from ordergate.bench import BENCHES, _history
from ordergate.bench._history_seed import History, seed_history
from ordergate.cli import app
from ordergate.core import Side, SteppedClock
from ordergate.ledger import FilingStatus, Ledger, open_ledger
from ordergate.policy import Proposal

pytestmark = pytest.mark.req("bench.history")


def test_history_is_a_registered_bench() -> None:
    assert BENCHES["history"] is _history.run_history_bench


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _portfolio(ledger: Ledger, clock: SteppedClock) -> dict[str, Any]:
    venue = _history.paper_venue(ledger, clock)
    answer: dict[str, Any] = await venue.caller.call(
        "get_portfolio", {"account_number": _history.ACCOUNT}
    )
    return answer


@pytest.mark.anyio
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_the_seeded_history_is_ended_filings_on_a_valid_chain(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = SteppedClock(start=_history.START)
    with database(backend, tmp_path) as url, open_ledger(url, clock=clock) as ledger:
        await _history.open_book(_history.paper_venue(ledger, clock))
        history = History(_history.ACCOUNT, "me", 20, others=3)
        assert seed_history(ledger, history, before=_history.START) == 40
        assert capsys.readouterr().err == "bench history: seeded 40/40\n"
        assert ledger.verify().ok
        assert ledger.open_filings() == []
        mine = ledger.filings_of("me", limit=100)
        assert len(mine) == 20 and {record.account for record in mine} == {_history.ACCOUNT}
        assert all(record.created_at < _history.START for record in mine)
        endings = Counter(record.status for record in mine)
        assert endings == {
            FilingStatus.FILLED: 16, FilingStatus.DENIED: 2, FilingStatus.NOT_PLACED: 2
        }  # fmt: skip
        others = {record.account for record in ledger.filings_of("other-agent-0", limit=100)}
        assert others <= {f"{_history.ACCOUNT}-other-{index}" for index in range(3)}
        filled = next(r for r in mine if r.status is FilingStatus.FILLED)
        assert [event.status for event in ledger.events(filled.id)] == [
            "pending_approval", "approved", "submitted", "filled", "",
        ]  # fmt: skip
        assert ledger.orders.get(filled.id).state == "filled"
        assert ledger.approvals.for_filing(filled.id) is not None
        # Eight buys at the ask and eight sells at the bid, each sale paying the venue's
        # fees: the paper book is flat, less eight spreads and eight fees.
        portfolio = await _portfolio(ledger, clock)
        assert (portfolio["cash"], portfolio["equity_value"]) == ("999999.68", "0.00")
        assert ledger.rolling_spend(_history.ACCOUNT).orders == 0  # long before the bench


@pytest.mark.anyio
async def test_a_measured_call_that_did_not_do_what_it_measures_stops_the_bench(
    tmp_path: Path,
) -> None:
    clock = SteppedClock(start=_history.START)
    with open_ledger(f"sqlite:///{tmp_path / 'h.db'}", clock=clock) as ledger:
        desk = await _history.open_desk(ledger, clock, 0)
        await _history.one_pass(desk)
        # One more order left waiting for approval: the pass now sees four open filings.
        proposal = Proposal(symbol="SPY", side=Side.BUY, quantity=Decimal(1))
        await desk.guard.submit(proposal, identity=_history.IDENTITY)
        with pytest.raises(RuntimeError, match="the reconciler pass saw"):
            await _history.one_pass(desk)


_TINY = _history.Sizes(
    histories=(0, 30), own=(20,), rounds=2, orders=1, passes=2, records=3, warmup=1, page=4
)


def _cases_of(output: str, prefix: str = "") -> list[dict[str, object]]:
    lines = [json.loads(line, parse_float=Decimal) for line in output.splitlines()]
    assert {line["bench"] for line in lines} == {"history"}
    counts = {"order": 2, "reconcile": 4, "record": 6}
    for line in lines:
        case, _, size = str(line["case"]).removeprefix(prefix).partition("_")
        assert line["n"] == counts[case]
        assert line["p50_us"] > 0 and line["p99_us"] >= line["p50_us"]
        if size == "h0":
            assert "baseline" not in line and "ratio" not in line
        else:
            assert line["baseline"] == f"{prefix}{case}_h0" and line["ratio"] > 0
    return lines


def test_a_quick_run_prints_every_case_beside_its_h0_baseline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_history.SIZES, "quick", _TINY)
    monkeypatch.delenv(PG_ENV, raising=False)
    result = CliRunner().invoke(app, ["bench", "history", "--quick"])
    assert result.exit_code == 0, result.output
    assert [line["case"] for line in _cases_of(result.stdout)] == [
        "order_h0", "order_h30", "order_own_h20",
        "reconcile_h0", "reconcile_h30", "reconcile_own_h20",
        "record_h0", "record_h30", "record_own_h20",
    ]  # fmt: skip
    assert "bench history: seeding 30 ended filings" in result.stderr
    assert "bench history: seeding 20 of the account's own ended orders" in result.stderr
    assert "bench history: verified" in result.stderr
    assert "bench history: round 2/2" in result.stderr
    assert "Postgres" not in result.stderr


@pytest.mark.req("bench.history.own")
def test_with_pg_the_same_cases_follow_on_postgres_beside_pg_h0(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = pg_server()
    tiny = _history.Sizes(
        histories=(0,), own=(20,), rounds=2, orders=1, passes=2, records=3, warmup=1, page=4
    )
    monkeypatch.setitem(_history.SIZES, "quick", tiny)
    monkeypatch.delenv(PG_ENV)
    result = CliRunner().invoke(app, ["bench", "history", "--quick", "--pg", url])
    assert result.exit_code == 0, result.output
    sqlite, postgres = result.stdout.splitlines()[:6], result.stdout.splitlines()[6:]
    assert [line["case"] for line in _cases_of("\n".join(sqlite))] == [
        "order_h0", "order_own_h20", "reconcile_h0", "reconcile_own_h20", "record_h0",
        "record_own_h20",
    ]  # fmt: skip
    assert [line["case"] for line in _cases_of("\n".join(postgres), "pg_")] == [
        "pg_order_h0", "pg_order_own_h20", "pg_reconcile_h0", "pg_reconcile_own_h20",
        "pg_record_h0", "pg_record_own_h20",
    ]  # fmt: skip
    assert "bench history: the same on Postgres" in result.stderr


# Columns that name an instant, a position in a chain or an id minted per order: they differ
# between any two runs; everything else of a row is compared.
_PER_RUN = {
    "seq", "id", "filing_id", "ref_id", "order_id", "broker_order_id", "created_at",
    "created_us", "updated_at", "executed_at", "expires_at", "decided_at", "prev_hash", "hash",
    "account_seq",
}  # fmt: skip
_OWN_TABLES = {
    "filings": "id", "filing_events": "filing_id", "reservations": "filing_id",
    "approvals": "filing_id", "decisions": "filing_id", "orders": "ref_id",
    "executions": "ref_id", "venue_ended_orders": "ref_key", "open_filings": "filing_id",
}  # fmt: skip
# The same inside the engine's bodies (an ended order's, a closed trade's), and the open
# state's counters that count what else the book has seen (the bench's resting orders).
_PER_RUN_BODY = _PER_RUN | {
    "confirm_at", "next_check", "sequence", "execution_id", "open_lot_id", "opened_at", "ref_key",
    "closed_at", "trade_id",
}  # fmt: skip
_BOOK_KEPT = ("cash", "lots", "trades")


def _rows_of(ledger: Ledger, filing_ids: list[str]) -> dict[str, list[tuple[object, ...]]]:
    """Every row the order path wrote for ``filing_ids`` (in their order), table by table,
    without what differs between any two runs; ids minted per order inside a detail are
    replaced by their place among the filing's ids."""
    shapes: dict[str, list[tuple[object, ...]]] = {}
    with ledger.engine.connect() as connection:
        for table, key in _OWN_TABLES.items():
            found: list[tuple[object, ...]] = []
            for filing_id in filing_ids:
                rows = connection.execute(
                    text(f"SELECT * FROM {table} WHERE {key} = :key"), {"key": filing_id}
                ).mappings()
                ordered = sorted(rows, key=lambda row: row.get("seq") or 0)
                found += [_kept(dict(row)) for row in ordered]
            shapes[table] = found
        shapes["venue_closed_trades"] = [
            _kept(dict(row))
            for row in connection.execute(
                text("SELECT * FROM venue_closed_trades ORDER BY ordinal")
            ).mappings()
        ]
        [state] = connection.execute(text("SELECT state FROM venue_books")).scalars()
        book = json.loads(state)
        shapes["venue_books"] = [tuple((name, book[name]) for name in _BOOK_KEPT)]
    return shapes


def _kept(row: dict[str, object]) -> tuple[object, ...]:
    kept: list[object] = []
    for column, value in sorted(row.items()):
        if column in _PER_RUN_BODY or column == "ordinal":
            continue
        if column == "detail" and isinstance(value, str):
            detail = json.loads(value)
            for minted in ("approval_id", "order_id", "expires_at"):
                if minted in detail:
                    detail[minted] = minted
            value = json.dumps(detail, sort_keys=True)
        if column == "body" and isinstance(value, str):
            value = json.dumps(_body_kept(json.loads(value)), sort_keys=True)
        kept.append((column, value))
    return tuple(kept)


def _body_kept(body: dict[str, Any]) -> dict[str, Any]:
    """An engine body without what differs between runs (an execution's id and instant)."""
    kept = {name: value for name, value in body.items() if name not in _PER_RUN_BODY}
    if "executions" in kept:
        kept["executions"] = [
            [price, quantity, fees] for _, price, quantity, _, fees in kept["executions"]
        ]
    return kept


@pytest.mark.anyio
@pytest.mark.req("bench.history.own")
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_the_seeded_own_orders_are_the_rows_the_bench_order_path_writes(
    backend: str, tmp_path: Path
) -> None:
    placed_clock = SteppedClock(start=_history.START)
    with (
        database(backend, tmp_path / "placed") as url,
        open_ledger(url, clock=placed_clock) as placed,
    ):
        desk = await _history.open_desk(placed, placed_clock, 0)
        resting = {str(record.id) for record in placed.filings_of(_history.IDENTITY, limit=10)}
        for _ in range(4):
            await _history.one_order(desk)
            placed_clock.advance(timedelta(seconds=1))
        mine = [
            r for r in placed.filings_of(_history.IDENTITY, limit=10) if str(r.id) not in resting
        ]
        real = _rows_of(placed, [str(record.id) for record in reversed(mine)])
    seeded_clock = SteppedClock(start=_history.START)
    with (
        database(backend, tmp_path / "seeded") as url,
        open_ledger(url, clock=seeded_clock) as ledger,
    ):
        await _history.open_book(_history.paper_venue(ledger, seeded_clock))
        own = History(_history.ACCOUNT, _history.IDENTITY, 4, own=True)
        assert seed_history(ledger, own, before=_history.START, progress=lambda _: None) == 4
        assert ledger.verify().ok
        seeded = ledger.filings_of(_history.IDENTITY, limit=10)
        rows = _rows_of(ledger, [str(record.id) for record in reversed(seeded)])
    assert [len(real[table]) for table in real] == [4, 20, 4, 4, 8, 4, 4, 4, 0, 2, 1]
    assert rows == real

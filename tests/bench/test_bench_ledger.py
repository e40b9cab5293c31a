"""``ordergate bench ledger``: a tiny run printed as JSON lines, with its baselines."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from pg_testkit import PG_ENV, pg_server
from sqlalchemy import make_url
from typer.testing import CliRunner

from ordergate.bench import BENCHES, _ledger
from ordergate.cli import app
from ordergate.core import RealtimeClock
from ordergate.ledger import open_ledger

TINY = {"quick": (20, 2, 10, 200, 1, 5), "full": (20, 2, 10, 200, 1, 5)}
SQLITE_CASES = [
    "sqlite_raw_commit", "sqlite_file_and_reserve", "sqlite_file_and_reserve_keyed",
    "sqlite_raw_group", "sqlite_file_many", "sha256_chain", "verify_chain",
]  # fmt: skip
PG_CASES = [
    "pg_raw_commit_8w", "pg_file_and_reserve_8w", "pg_file_and_reserve_8w_one_account",
    "pg_file_many_8w",
]  # fmt: skip
PG_URL = PG_ENV


def test_ledger_is_a_registered_bench() -> None:
    assert BENCHES["ledger"] is _ledger.run_ledger_bench


def test_a_quick_run_prints_every_sqlite_case_beside_its_baseline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_ledger, "SIZES", TINY)
    monkeypatch.delenv("ORDERGATE_TEST_PG_URL", raising=False)
    result = CliRunner().invoke(app, ["bench", "ledger", "--quick"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line, parse_float=Decimal) for line in result.output.splitlines()]
    assert [line["case"] for line in lines] == SQLITE_CASES
    assert lines[1]["baseline"] == "sqlite_raw_commit"
    assert lines[2]["baseline"] == "sqlite_file_and_reserve"
    assert lines[4]["baseline"] == "sqlite_raw_group" and lines[4]["n"] == 20
    assert lines[6]["baseline"] == "sha256_chain" and lines[6]["n"] == 200
    assert all(line["ops_per_s"] > 0 for line in lines)


def test_each_postgres_writer_measures_n_calls_after_the_start_signal() -> None:
    url = pg_server()
    started: list[bool] = []
    with _ledger.scratch_postgres(url) as scratch:
        from sqlalchemy import create_engine, text

        engine = create_engine(scratch)
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE raw_t (seq BIGSERIAL, id TEXT, body TEXT)"))
        engine.dispose()
        raw = _ledger.raw_pg_samples(scratch, 0, 3, lambda: started.append(True))
        filed = _ledger.ledger_pg_samples(scratch, 1, 4, lambda: started.append(True))
        shared = _ledger.ledger_pg_samples(
            scratch, 3, 2, lambda: started.append(True), _ledger.SHARED_ACCOUNT
        )
        grouped = _ledger.ledger_pg_group_samples(
            scratch, 2, 2 * _ledger.PG_BATCH, lambda: started.append(True)
        )
        with open_ledger(scratch, clock=RealtimeClock()) as ledger:
            own = ledger.open_filings(account="acct-1")
            assert len(ledger.open_filings(account=_ledger.SHARED_ACCOUNT)) == 2 + 10
            # Each writer's filings are dated 72 minutes apart: 20 a day in the window.
            assert own[-1].created_at - own[0].created_at == (14 - 1) * timedelta(minutes=72)
            assert ledger.verify().ok
    assert (len(raw), len(filed), len(shared), len(grouped)) == (3, 4, 2, 2 * _ledger.PG_BATCH)
    assert started == [True, True, True, True]


def test_with_postgres_eight_writers_are_measured_against_raw_inserts_and_no_password_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = make_url(pg_server())
    # The server trusts local connections, so any password gets in: it must still not show.
    url = server.set(password="hunter2-not-shown").render_as_string(hide_password=False)
    monkeypatch.setattr(_ledger, "SIZES", TINY)
    monkeypatch.delenv(PG_URL)
    result = CliRunner().invoke(app, ["bench", "ledger", "--quick", "--pg", url])
    assert result.exit_code == 0, result.output
    assert "hunter2" not in result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    by_case = {line["case"]: line for line in lines}
    assert [line["case"] for line in lines] == SQLITE_CASES + PG_CASES
    for case in PG_CASES[1:3]:
        assert by_case[case]["n"] == 8 * 5
        assert by_case[case]["baseline"] == "pg_raw_commit_8w"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://agent:hunter2-not-shown@127.0.0.1:1/nothing",
         "postgresql://agent:***@127.0.0.1:1/nothing"),
        ("postgresql://agent@127.0.0.1:1/nothing", "postgresql://agent@127.0.0.1:1/nothing"),
    ],
)  # fmt: skip
def test_bench_pg_reports_an_unreachable_server_without_its_password(
    monkeypatch: pytest.MonkeyPatch, url: str, shown: str
) -> None:
    monkeypatch.setattr(_ledger, "SIZES", TINY)
    result = CliRunner().invoke(app, ["bench", "ledger", "--quick", "--pg", url])
    assert result.exit_code == 1
    assert "hunter2" not in result.output
    assert f"the Postgres server at {shown} failed" in result.output


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["ledger", "--pg", "::hunter2-not-shown::"], "not a database URL"),
        (["ledger", "--pg", "sqlite:///hunter2-not-shown.db"], "not a postgresql:// URL"),
        (
            ["policy", "--pg", "postgresql://u:hunter2-not-shown@h/d"],
            "only the ledger and history benches",
        ),
    ],
)
def test_bench_pg_refuses_what_is_not_a_postgres_server_for_the_ledger_bench(
    args: list[str], complaint: str
) -> None:
    result = CliRunner().invoke(app, ["bench", *args])
    assert result.exit_code == 2
    assert complaint in result.output
    assert "hunter2" not in result.output

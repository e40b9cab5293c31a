"""Rotation over the rows themselves (no gateway): what it leaves alone and how it says so —
a session it cannot open, a data key under a KEK its provider does not hold, an erased or
dead connection — and a row that fails closed when it is opened."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest
from sqlalchemy import select, update
from typer.testing import CliRunner

from ordergate.cli._app import app
from ordergate.client import LoginRequired
from ordergate.core import Secret, SteppedClock
from ordergate.gateway import Sealer
from ordergate.gateway._schema import connections, push_keys
from ordergate.gateway.custody import Vault, rotate_keys
from ordergate.gateway.keys import MasterSecretProvider, seal_envelope
from ordergate.gateway.oauth._connections import erase_connection, open_sealed_connection
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.gateway.push import rail_vapid_key
from ordergate.ledger import Ledger, open_ledger
from ordergate.store import write_transaction

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
MASTER = "m" * 40
OTHER = "o" * 40
SESSION = {"access_token": "at", "refresh_token": "rt"}


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=SteppedClock(start=NOW)) as led:
        yield led


def _row(ledger: Ledger, connection_id: str, *, master: str = MASTER, v1: bool = False) -> None:
    plain = json.dumps(SESSION).encode()
    aad = connection_id.encode("ascii")
    if v1:
        sealed, wrapped, kek_id = Sealer(Secret(master)).seal(plain, aad=aad), None, None
    else:
        envelope = seal_envelope(MasterSecretProvider(Secret(master)), plain, aad=aad)
        sealed, wrapped, kek_id = envelope.sealed, envelope.data_key_wrapped, envelope.kek_id
    with write_transaction(ledger.engine) as tx:
        open_sealed_connection(
            tx, connection_id=connection_id, client_id="c", profile="monitor", sealed=sealed,
            data_key_wrapped=wrapped or "", kek_id=kek_id or "", expires_at=None, now=NOW,
        )  # fmt: skip
        tx.execute(
            update(connections)
            .where(connections.c.id == connection_id)
            .values(data_key_wrapped=wrapped, kek_id=kek_id)
        )


def _kek_ids(ledger: Ledger) -> dict[str, str | None]:
    with ledger.engine.connect() as db:
        rows = db.execute(select(connections.c.id, connections.c.kek_id))
        return {row.id: row.kek_id for row in rows}


def test_rows_it_cannot_open_are_left_as_they_were_and_their_kek_is_kept(
    ledger: Ledger,
) -> None:
    _row(ledger, "ours")
    _row(ledger, "foreign", master=OTHER)  # a data key under a KEK this provider lacks
    _row(ledger, "old-ours", v1=True)
    _row(ledger, "old-foreign", master=OTHER, v1=True)
    _row(ledger, "gone")
    with write_transaction(ledger.engine) as tx:
        erase_connection(tx, "gone")
    keys = MasterSecretProvider(Secret(MASTER))
    rotation = rotate_keys(ledger.engine, keys, sealers=[Sealer(Secret(MASTER))])
    assert rotation.moved == 1
    assert rotation.rewrapped == 0  # ours is under the current KEK already
    assert sorted(rotation.unopened) == ["foreign", "old-foreign"]
    foreign = MasterSecretProvider(Secret(OTHER)).key_id
    assert _kek_ids(ledger) == {
        "ours": keys.key_id, "old-ours": keys.key_id, "foreign": foreign, "old-foreign": None,
        "gone": None,
    }  # fmt: skip


def test_keys_rotate_exits_2_naming_each_connection_it_could_not_move(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    _row(ledger, "foreign", master=OTHER)
    monkeypatch.setenv("ORDERGATE_MASTER_SECRET", MASTER)
    monkeypatch.delenv("ORDERGATE_MASTER_SECRET_PREVIOUS", raising=False)
    monkeypatch.delenv("ORDERGATE_KEY_PROVIDER", raising=False)
    url = str(ledger.engine.url)
    result = CliRunner().invoke(app, ["keys", "rotate", "--db", url])
    assert result.exit_code == 2
    assert "every data key is under master-" in result.stdout
    assert "foreign: its data key did not unwrap with this provider; left as it was" in (
        result.stderr
    )
    bad = CliRunner().invoke(app, ["keys", "rotate", "--db", url, "--key-provider", "kms"])
    assert bad.exit_code == 2
    assert "ORDERGATE_KEY_PROVIDER: must be master or pkcs11, not 'kms'" in bad.output


def test_a_sealed_row_without_its_data_key_fails_closed_and_ends_nothing(
    ledger: Ledger,
) -> None:
    _row(ledger, "torn")
    with ledger.engine.begin() as db:
        db.execute(
            update(connections).where(connections.c.id == "torn").values(data_key_wrapped=None)
        )
    clock = SteppedClock(start=NOW)
    day = timedelta(days=1)
    store = GatewayStore(
        ledger.engine, clock=clock, access_ttl=day, refresh_ttl=day, code_ttl=day,
        consent_ttl=day,
    )  # fmt: skip
    vault = Vault(
        ledger.engine, keys=MasterSecretProvider(Secret(MASTER)), store=store, clock=clock,
        upstream_url="http://127.0.0.1:9/mcp",
    )  # fmt: skip

    async def use() -> None:
        async with vault.session("torn"):
            raise AssertionError("opened")  # pragma: no cover - the test fails here

    with pytest.raises(LoginRequired, match="has ended"):
        anyio.run(use)


def test_a_connection_wrapped_under_the_old_kek_during_a_rotation_is_moved_before_it_ends(
    ledger: Ledger,
) -> None:
    _row(ledger, "first", master=OTHER)
    _row(ledger, "second", master=OTHER)
    keys = MasterSecretProvider(Secret(MASTER), previous=[Secret(OTHER)])
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if len(seen) == 1:  # a rail that had not yet seen the new KEK connects someone
            _row(ledger, "meanwhile", master=OTHER)

    rotation = rotate_keys(ledger.engine, keys, progress=progress)
    assert rotation.rewrapped == 3 and rotation.unopened == []
    assert seen == [(1, 2), (2, 2), (1, 1)]
    assert set(_kek_ids(ledger).values()) == {keys.key_id}


def test_rotation_rewraps_the_rails_vapid_key_which_still_opens_and_keeps_its_public_key(
    ledger: Ledger,
) -> None:
    old = MasterSecretProvider(Secret(OTHER))
    made = rail_vapid_key(ledger.engine, old, now=NOW)
    keys = MasterSecretProvider(Secret(MASTER), previous=[Secret(OTHER)])
    rotation = rotate_keys(ledger.engine, keys)
    with ledger.engine.connect() as db:
        kek_id = db.execute(select(push_keys.c.kek_id)).scalar_one()
    assert kek_id == rotation.key_id
    assert rail_vapid_key(ledger.engine, keys, now=NOW).public_key == made.public_key
    assert "private" not in repr(made).replace("<private>", "")

"""Per-connection keys under a key provider, over real sockets (issue 30 §4): each sealed
session under its own data key, wrapped by the master secret's KEK or by a KEK on a real
PKCS#11 token (SoftHSM2); rotation while the rail serves; a copy of the ledger without the
token; an erased connection's session gone from the file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from custody_kit import MASTER, OPEN, REDIRECT, Custodian, custodian
from hsm_testkit import new_token
from mcp_http_testkit import McpSession as Mcp
from pg_testkit import database
from sqlalchemy import Engine, create_engine, select, update
from typer.testing import CliRunner

from ordergate.cli._app import app
from ordergate.client import LoginRequired
from ordergate.core import Secret, SteppedClock
from ordergate.gateway import Sealer
from ordergate.gateway._schema import connections
from ordergate.gateway.custody import Vault, rotate_keys, shred_erased
from ordergate.gateway.keys import (
    KeyProvider,
    KeyProviderError,
    MasterSecretProvider,
    Pkcs11Provider,
    open_envelope,
    seal_envelope,
)
from ordergate.gateway.oauth._connections import erase_connection, open_sealed_connection
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.ledger import open_ledger
from ordergate.store import purge_freed, write_transaction


def _quotes(gateway: Custodian, token: str) -> str:
    """One forwarded read on the connection's own upstream session: the symbol it quoted."""
    mcp = Mcp(gateway.url, token)
    try:
        result = mcp.tool("get_equity_quotes", {"symbols": ["SPY"]})
    finally:
        mcp.close()
    symbol: str = result["data"]["results"][0]["quote"]["symbol"]
    return symbol


def _disconnect(gateway: Custodian, token: str) -> None:
    """The agent ends its own connection (``gate_disconnect``)."""
    mcp = Mcp(gateway.url, token)
    try:
        mcp.tool("gate_disconnect", {})
    finally:
        mcp.close()


def _tokens(keys: KeyProvider, row: dict[str, Any]) -> dict[str, Any]:
    """The session a row seals, opened the way only the vault opens it (to know what must
    never be found in the clear)."""
    plain, _ = open_envelope(
        keys,
        row["upstream_sealed"],
        data_key_wrapped=row["data_key_wrapped"],
        kek_id=row["kek_id"],
        aad=row["id"].encode("ascii"),
    )
    tokens: dict[str, Any] = json.loads(plain)
    return tokens


def _secrets_of(tokens: dict[str, Any]) -> list[bytes]:
    return [tokens[name].encode() for name in ("access_token", "refresh_token") if tokens[name]]


def _copied(engine: Engine, tmp_path: Path, name: str) -> Path:
    """The SQLite ledger's files as they are now, copied elsewhere (as a backup or a thief
    would: the database file and its write-ahead log)."""
    source = Path(str(engine.url.database))
    folder = tmp_path / name
    folder.mkdir()
    for suffix in ("", "-wal"):
        if Path(f"{source}{suffix}").exists():
            shutil.copyfile(f"{source}{suffix}", folder / f"ledger.db{suffix}")
    return folder / "ledger.db"


def _file_bytes(path: Path) -> bytes:
    return b"".join(
        Path(f"{path}{suffix}").read_bytes()
        for suffix in ("", "-wal")
        if Path(f"{path}{suffix}").exists()
    )


def _vault(engine: Engine, keys: KeyProvider) -> Vault:
    clock = SteppedClock(start=OPEN)
    day = timedelta(days=1)
    store = GatewayStore(
        engine, clock=clock, access_ttl=day, refresh_ttl=day, code_ttl=day, consent_ttl=day
    )
    return Vault(
        engine,
        keys=keys,
        sealer=Sealer(Secret(MASTER)),
        store=store,
        clock=clock,
        upstream_url="http://127.0.0.1:9/mcp",
    )


@pytest.fixture
def token_keys() -> Iterator[Pkcs11Provider]:
    provider = new_token().provider()
    try:
        yield provider
    finally:
        provider.close()


@pytest.mark.req("gateway.keys.rotation")
@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_rotation_on_the_token_rewraps_every_data_key_and_every_connection_still_works(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_keys: Pkcs11Provider
) -> None:
    with (
        database(kind, tmp_path) as url,
        custodian(tmp_path, monkeypatch, db_url=url, key_provider=token_keys) as gateway,
    ):
        people = [gateway.connect() for _ in range(3)]
        assert all(_quotes(gateway, person) == "SPY" for person in people)
        before = {row["id"]: row for row in gateway.rows()}
        assert {row["kek_id"] for row in before.values()} == {"ordergate-kek-0001"}
        sessions = {key: _tokens(token_keys, row) for key, row in before.items()}
        seen: list[tuple[int, int]] = []
        rotation = rotate_keys(
            gateway.engine, token_keys, progress=lambda done, total: seen.append((done, total))
        )
        assert rotation.key_id == "ordergate-kek-0002"
        assert (rotation.rewrapped, rotation.unopened) == (3, [])
        assert rotation.retired == ["ordergate-kek-0001"]
        assert seen == [(1, 3), (2, 3), (3, 3)]
        after = {row["id"]: row for row in gateway.rows()}
        for key, row in after.items():
            assert row["kek_id"] == "ordergate-kek-0002"
            assert row["data_key_wrapped"] != before[key]["data_key_wrapped"]
            # Only the wrap moved: the session's own ciphertext was never opened to move.
            assert row["upstream_sealed"] == before[key]["upstream_sealed"]
            assert _tokens(token_keys, row) == sessions[key]
        # Every connection still works on its own session, and a new one joins under the new
        # KEK.
        assert all(_quotes(gateway, person) == "SPY" for person in people)
        # What else is sealed under each data key moved with it: each person's own code (the
        # TOTP secret) still authorizes their act.
        assert all(gateway.set_approval_mode(i, on=True).status_code == 200 for i in range(3))
        assert _quotes(gateway, gateway.connect()) == "SPY"
        assert {row["kek_id"] for row in gateway.rows()} == {"ordergate-kek-0002"}
        # The old KEK is gone from the token: a wrap from before the rotation opens nothing.
        old = next(iter(before.values()))
        with pytest.raises(KeyProviderError, match="ordergate-kek-0001, which token"):
            _tokens(token_keys, old)


@pytest.mark.req("gateway.keys.resumable")
def test_a_rotation_interrupted_midway_leaves_every_connection_openable_and_a_rerun_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_keys: Pkcs11Provider
) -> None:
    with custodian(tmp_path, monkeypatch, key_provider=token_keys) as gateway:
        people = [gateway.connect() for _ in range(3)]

        def crash(done: int, total: int) -> None:
            if done == 2:
                raise KeyboardInterrupt  # the operator's Ctrl+C, or the process killed

        with pytest.raises(KeyboardInterrupt):
            rotate_keys(gateway.engine, token_keys, progress=crash)
        kek_ids = sorted(row["kek_id"] for row in gateway.rows())
        assert kek_ids == ["ordergate-kek-0001", "ordergate-kek-0002", "ordergate-kek-0002"]
        assert all(_quotes(gateway, person) == "SPY" for person in people)
        rotation = rotate_keys(gateway.engine, token_keys)
        assert rotation.key_id == "ordergate-kek-0003"
        assert rotation.retired == ["ordergate-kek-0001", "ordergate-kek-0002"]
        assert {row["kek_id"] for row in gateway.rows()} == {"ordergate-kek-0003"}
        assert all(_quotes(gateway, person) == "SPY" for person in people)


@pytest.mark.req("gateway.keys.no-token")
def test_a_ledger_copied_off_the_rail_read_with_the_master_secret_but_no_token_opens_no_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_keys: Pkcs11Provider
) -> None:
    with custodian(tmp_path, monkeypatch, key_provider=token_keys) as gateway:
        for _ in range(2):
            assert _quotes(gateway, gateway.connect()) == "SPY"
        rows = gateway.rows()
        secrets = [s for row in rows for s in _secrets_of(_tokens(token_keys, row))]
        copy = _copied(gateway.engine, tmp_path, "stolen")
    assert len(secrets) == 4
    stolen = _file_bytes(copy)
    assert all(secret not in stolen for secret in secrets)
    engine = create_engine(f"sqlite:///{copy}")
    try:
        # The thief holds the master secret (and so the master secret's KEK), not the token.
        vault = _vault(engine, MasterSecretProvider(Secret(MASTER)))
        for row in rows:
            with pytest.raises(LoginRequired, match="ordergate-kek-0001, which the master"):
                anyio.run(_open_session, vault, row["id"])
        with engine.connect() as db:
            states = set(db.execute(select(connections.c.state)).scalars())
        assert states == {"live"}  # failing closed changed nothing
    finally:
        engine.dispose()


async def _open_session(vault: Vault, connection_id: str) -> None:
    async with vault.session(connection_id):
        raise AssertionError("a session opened")  # pragma: no cover - the test fails here


@pytest.mark.req("gateway.keys.shredding")
@pytest.mark.parametrize("provider", ["master", "pkcs11"])
def test_an_erased_connections_session_is_gone_from_a_copy_of_the_ledger_taken_after(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_keys: Pkcs11Provider
) -> None:
    keys: KeyProvider = token_keys if provider == "pkcs11" else MasterSecretProvider(Secret(MASTER))
    with custodian(tmp_path, monkeypatch, key_provider=keys) as gateway:
        kept, gone = gateway.connect(), gateway.connect()
        assert _quotes(gateway, gone) == "SPY"
        (erased,) = [row for row in gateway.rows() if _holds(gateway, row, gone)]
        tokens = _tokens(keys, erased)
        _disconnect(gateway, gone)
        copy = _copied(gateway.engine, tmp_path, "after")
        assert _quotes(gateway, kept) == "SPY"
        (row,) = [row for row in gateway.rows() if row["id"] == erased["id"]]
    assert row["state"] == "erased"
    assert (row["upstream_sealed"], row["data_key_wrapped"], row["kek_id"]) == (None,) * 3
    # Nothing of it survives anywhere in the copied files: not its session in the clear, not
    # its sealed blob, not its wrapped data key (so not even the master secret reopens it).
    found = _file_bytes(copy)
    for trace in (
        *_secrets_of(tokens),
        erased["upstream_sealed"].encode(),
        erased["upstream_sealed"][3:40].encode(),
        erased["data_key_wrapped"].encode(),
    ):
        assert trace not in found


@pytest.mark.req("gateway.keys.restore")
def test_a_restore_from_a_backup_taken_before_a_disconnect_cannot_reopen_the_erased_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_keys: Pkcs11Provider
) -> None:
    with custodian(tmp_path, monkeypatch, key_provider=token_keys) as gateway:
        kept, gone = gateway.connect(), gateway.connect()
        assert _quotes(gateway, gone) == "SPY"
        (erased,) = [row for row in gateway.rows() if _holds(gateway, row, gone)]
        backup = _copied(gateway.engine, tmp_path, "backup")  # the night before
        assert _tokens(token_keys, erased)["access_token"]  # the backup's copy opens, today
        _disconnect(gateway, gone)
        # The disconnect rotated past the KEK the erased data key was under, and destroyed it:
        # the other connection goes on, under the new KEK.
        assert _quotes(gateway, kept) == "SPY"
        rows = {row["id"]: row for row in gateway.rows()}
        assert rows[erased["id"]]["kek_id"] is None  # nothing owed to a backup any more
        (live,) = [row for key, row in rows.items() if key != erased["id"]]
        assert live["kek_id"] == "ordergate-kek-0002"
    # The rail restored from the backup, with the same token: the erased connection's data key
    # is there, wrapped by a KEK that exists nowhere, and its session does not open.
    engine = create_engine(f"sqlite:///{backup}")
    try:
        with engine.connect() as db:
            (restored,) = db.execute(
                select(connections.c.state, connections.c.kek_id).where(
                    connections.c.id == erased["id"]
                )
            ).all()
        assert tuple(restored) == ("live", "ordergate-kek-0001")
        with pytest.raises(KeyProviderError, match="ordergate-kek-0001, which token"):
            _tokens(token_keys, erased)
        with pytest.raises(LoginRequired):
            anyio.run(_open_session, _vault(engine, token_keys), erased["id"])
    finally:
        engine.dispose()


@pytest.mark.req("gateway.keys.restore")
def test_a_connection_ended_by_its_code_replayed_is_shredded_past_as_a_disconnect_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_keys: Pkcs11Provider
) -> None:
    with custodian(tmp_path, monkeypatch, key_provider=token_keys) as gateway:
        kept, gone = gateway.connect(), gateway.connect()
        (erased,) = [row for row in gateway.rows() if _holds(gateway, row, gone)]
        code = gateway.minted[-3]  # the second connection's authorization code, spent
        with httpx2.Client(timeout=30) as http:
            replayed = http.post(
                gateway.url + "/oauth/token",
                data={
                    "grant_type": "authorization_code",
                    "code": code,
                    "client_id": erased["client_id"],
                    "redirect_uri": REDIRECT,
                    "code_verifier": "v" * 43,
                },
            )
        assert replayed.status_code == 400, replayed.text
        rows = {row["id"]: row for row in gateway.rows()}
        assert rows[erased["id"]]["state"] == "erased", replayed.text
        assert rows[erased["id"]]["kek_id"] is None
        assert {row["kek_id"] for row in rows.values() if row["state"] == "live"} == {
            "ordergate-kek-0002"
        }
        assert _quotes(gateway, kept) == "SPY"
    with pytest.raises(KeyProviderError, match="ordergate-kek-0001, which token"):
        _tokens(token_keys, erased)


@pytest.mark.req("gateway.keys.restore")
def test_a_shredding_owed_when_the_rail_starts_is_done_before_it_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_keys: Pkcs11Provider
) -> None:
    """An erasure made while no rail ran (the command line on the ledger) leaves its KEK named
    on the row; the rail rotates past it as it starts, and nothing is owed after."""
    url = f"sqlite:///{tmp_path / 'before.db'}"
    with open_ledger(url, clock=SteppedClock(start=OPEN)) as led:
        for connection_id in ("stays", "goes"):
            envelope = seal_envelope(token_keys, b'{"access_token": "at"}', aad=b"x")
            with write_transaction(led.engine) as tx:
                open_sealed_connection(
                    tx, connection_id=connection_id, client_id="c", profile="monitor",
                    sealed=envelope.sealed, data_key_wrapped=envelope.data_key_wrapped,
                    kek_id=envelope.kek_id, expires_at=None, now=OPEN,
                )  # fmt: skip
        with write_transaction(led.engine) as tx:
            erase_connection(tx, "goes")
    with custodian(tmp_path, monkeypatch, db_url=url, key_provider=token_keys) as gateway:
        kek_ids = {row["id"]: row["kek_id"] for row in gateway.rows()}
        assert kek_ids == {"stays": "ordergate-kek-0002", "goes": None}
        assert shred_erased(gateway.engine, token_keys) is None  # nothing owed: no rotation
        assert token_keys.key_id == "ordergate-kek-0002"


def _holds(gateway: Custodian, row: dict[str, Any], token: str) -> bool:
    """Whether ``row`` is the connection the gateway token ``token`` was issued for."""
    import hashlib

    from ordergate.gateway._schema import gateway_tokens

    with gateway.engine.connect() as db:
        connection_id = db.execute(
            select(gateway_tokens.c.connection_id).where(
                gateway_tokens.c.token_sha256 == hashlib.sha256(token.encode()).hexdigest()
            )
        ).scalar_one()
    return bool(row["id"] == connection_id)


@pytest.mark.req("gateway.keys.v1-moves")
def test_a_session_sealed_before_data_keys_moves_to_one_of_its_own_on_use_without_signing_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = MasterSecretProvider(Secret(MASTER))
    with custodian(tmp_path, monkeypatch) as gateway:
        person = gateway.connect()
        (row,) = gateway.rows()
        tokens = _tokens(keys, row)
        legacy = Sealer(Secret(MASTER)).seal(
            json.dumps(tokens).encode(), aad=row["id"].encode("ascii")
        )
        with gateway.engine.begin() as db:  # the row as a gateway before 0032 left it
            db.execute(
                update(connections)
                .where(connections.c.id == row["id"])
                .values(upstream_sealed=legacy, data_key_wrapped=None, kek_id=None)
            )
        assert _quotes(gateway, person) == "SPY"
        (moved,) = gateway.rows()
        assert moved["upstream_sealed"].startswith("v2.")
        assert moved["kek_id"] == keys.key_id
        assert _tokens(keys, moved) == tokens
        assert _quotes(gateway, person) == "SPY"


@pytest.mark.req("gateway.keys.master-rotation")
def test_ordergate_keys_rotate_moves_every_data_key_to_a_new_master_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_master = "q" * 40
    with custodian(tmp_path, monkeypatch) as gateway:
        gateway.connect(), gateway.connect()
        first, second = gateway.rows()
        tokens = _tokens(MasterSecretProvider(Secret(MASTER)), first)
        # One of them still sealed the old way: rotation moves it to a data key too.
        legacy = Sealer(Secret(MASTER)).seal(
            json.dumps(_tokens(MasterSecretProvider(Secret(MASTER)), second)).encode(),
            aad=second["id"].encode("ascii"),
        )
        with gateway.engine.begin() as db:
            db.execute(
                update(connections)
                .where(connections.c.id == second["id"])
                .values(upstream_sealed=legacy, data_key_wrapped=None, kek_id=None)
            )
        purge_freed(gateway.engine)
        monkeypatch.setenv("ORDERGATE_MASTER_SECRET", new_master)
        monkeypatch.setenv("ORDERGATE_MASTER_SECRET_PREVIOUS", MASTER)
        monkeypatch.delenv("ORDERGATE_KEY_PROVIDER", raising=False)
        result = CliRunner().invoke(app, ["keys", "rotate", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        new_id = MasterSecretProvider(Secret(new_master)).key_id
        assert report == {
            "key_id": new_id, "moved": 1, "rewrapped": 1, "retired": [], "unopened": [],
        }  # fmt: skip
        # The moved one went straight under the new KEK; the other was re-wrapped onto it.
        assert "re-wrapped 1/1" in result.stderr
        rows = {row["id"]: row for row in gateway.rows()}
    assert {row["kek_id"] for row in rows.values()} == {new_id}
    assert _tokens(MasterSecretProvider(Secret(new_master)), rows[first["id"]]) == tokens


def test_ordergate_keys_rotate_says_what_it_does_and_needs_the_master_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    helped = CliRunner().invoke(app, ["keys", "rotate", "--help"])
    assert helped.exit_code == 0
    for words in ("re-wrap", "--key-provider", "ORDERGATE_MASTER_SECRET_PREVIOUS", "never"):
        assert words in helped.output
    monkeypatch.delenv("ORDERGATE_MASTER_SECRET", raising=False)
    refused = CliRunner().invoke(app, ["keys", "rotate"])
    assert refused.exit_code == 2
    assert "ORDERGATE_MASTER_SECRET: must be set" in refused.output


@pytest.mark.parametrize(
    ("environ", "says"),
    [
        ({"ORDERGATE_KEY_PROVIDER": "kms"}, "ORDERGATE_KEY_PROVIDER: must be master or pkcs11"),
        (
            {
                "ORDERGATE_KEY_PROVIDER": "pkcs11",
                "ORDERGATE_PKCS11_MODULE": "/nonexistent/module.so",
                "ORDERGATE_PKCS11_TOKEN": "rail",
                "ORDERGATE_PKCS11_PIN": "1234",
            },
            "key provider: ORDERGATE_PKCS11_MODULE: no PKCS#11 module at /nonexistent",
        ),
    ],
)
def test_serve_refuses_a_key_provider_it_cannot_use_naming_it(
    environ: dict[str, str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    monkeypatch.setenv("ORDERGATE_MASTER_SECRET", MASTER)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["serve", "--sandbox", "--port", "0"])
    assert result.exit_code == 2, result.output
    assert says in result.output
    assert "1234" not in result.output


@pytest.mark.req("gateway.keys.rotation")
def test_ordergate_keys_rotate_in_another_process_moves_the_serving_rails_keys_on_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = new_token()
    serving_keys = token.provider()
    try:
        with custodian(tmp_path, monkeypatch, key_provider=serving_keys) as gateway:
            people = [gateway.connect() for _ in range(2)]
            env = {
                **os.environ,
                **token.env(),
                "ORDERGATE_MASTER_SECRET": MASTER,
                "ORDERGATE_HOME": str(gateway.home),
            }
            env.pop("ORDERGATE_DB_URL", None)
            done = subprocess.run(
                [sys.executable, "-m", "ordergate", "keys", "rotate"],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            assert "every data key is under ordergate-kek-0002: 2 re-wrapped" in done.stdout
            assert "retired: ordergate-kek-0001" in done.stdout
            assert "re-wrapped 2/2" in done.stderr
            assert token.pin not in done.stdout + done.stderr
            # The serving rail sees the token's new KEK: its people go on, a new one joins
            # under it.
            assert all(_quotes(gateway, person) == "SPY" for person in people)
            assert _quotes(gateway, gateway.connect()) == "SPY"
            assert {row["kek_id"] for row in gateway.rows()} == {"ordergate-kek-0002"}
    finally:
        serving_keys.close()

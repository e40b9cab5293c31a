"""The lockout per source in front of the global one, the passphrase's own scrypt pool, the
alert on a lock and the unlock: wrong codes from one place cost the gateway a read once that
place is locked, and nobody reaching a code route can lock the owner out of the owner's
channel."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pyotp
import pytest

import ordergate.owner._passphrase as passphrase_module
from ordergate.core import SteppedClock
from ordergate.ledger import Ledger
from ordergate.owner import (
    BUSY,
    CODE_WRONG,
    LOCKED,
    MAX_FAILURES,
    OWNER_CHANNEL,
    SOURCE_FAILURES,
    SOURCE_LOCKOUT,
    Credential,
    LockAlert,
    OwnerAct,
    OwnerAuthority,
    OwnerRefused,
    ScryptPool,
    act_digest,
    acting_from,
    new_enrolment,
    write_enrolment,
)
from ordergate.store import blocking

PHRASE = "correct horse battery staple"
WRONG = "not the passphrase at all"
DIGEST = act_digest(OwnerAct.APPROVE, {"approval_id": "a1"})
BOUND_S = 30


def _authority(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock, **options: Any
) -> tuple[OwnerAuthority, pyotp.TOTP]:
    path = tmp_path / "owner.json"
    enrolment = new_enrolment(passphrase=PHRASE, now=wall.now())
    write_enrolment(path, enrolment)
    totp = pyotp.TOTP(enrolment.totp_secret.reveal())
    return OwnerAuthority(enrolment_path=path, ledger=ledger, clock=wall, **options), totp


def _check(authority: OwnerAuthority, code: str, source: str) -> str:
    """The credential's value or the refusal's reason, checked as the gateway checks."""

    async def attempt() -> str:
        with acting_from(source):
            try:
                return (await authority.check(code, OwnerAct.APPROVE, digest=DIGEST)).value
            except OwnerRefused as refused:
                return refused.reason

    return anyio.run(attempt)


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each scrypt derivation's thread name, in order."""
    calls: list[str] = []
    derive = passphrase_module._derive

    def counting(*args: Any, **kwargs: Any) -> bytes:
        calls.append(threading.current_thread().name)
        return derive(*args, **kwargs)

    monkeypatch.setattr(passphrase_module, "_derive", counting)
    yield calls


def _writes(ledger: Ledger) -> int:
    return len(ledger.journal.entries(limit=10_000))


@pytest.mark.req("owner.code.source-lockout")
def test_wrong_codes_past_the_sources_limit_are_refused_without_running_scrypt(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock, scrypt_calls: list[str]
) -> None:
    authority, _ = _authority(tmp_path, ledger, wall)
    scrypt_calls.clear()  # enrolling hashed the passphrase
    source = "203.0.113.0/24"
    assert [_check(authority, WRONG, source) for _ in range(SOURCE_FAILURES)] == [
        CODE_WRONG
    ] * SOURCE_FAILURES
    assert len(scrypt_calls) == SOURCE_FAILURES
    assert all(name.startswith("ordergate-scrypt") for name in scrypt_calls)
    written = _writes(ledger)
    # Past the limit: refused before any scrypt, and nothing more written to the ledger.
    assert [_check(authority, WRONG, source) for _ in range(20)] == [LOCKED] * 20
    assert _check(authority, PHRASE, source) == LOCKED
    assert len(scrypt_calls) == SOURCE_FAILURES
    assert _writes(ledger) == written
    # Another source is not held by this one's lock.
    assert _check(authority, PHRASE, "loopback") == Credential.PASSPHRASE.value


def _locks(ledger: Ledger, source: str) -> list[str]:
    return [
        str(e.detail["locked_until"])
        for e in ledger.journal.entries(limit=10_000)
        if e.kind == "owner_locked" and e.detail["source"] == source
    ]


@pytest.mark.req("owner.code.source-lockout")
def test_a_sources_lock_doubles_each_time_it_is_earned_again_and_a_right_code_forgives_it(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, _ = _authority(tmp_path, ledger, wall)
    spans = []
    for _ in range(3):
        for _ in range(SOURCE_FAILURES):
            assert _check(authority, "short", "loopback") == CODE_WRONG  # no scrypt: too short
        spans.append(datetime.fromisoformat(_locks(ledger, "loopback")[-1]) - wall.now())
        wall.advance(timedelta(minutes=16))  # past the lock and the global window
    assert spans == [SOURCE_LOCKOUT, SOURCE_LOCKOUT * 2, SOURCE_LOCKOUT * 4]
    assert _check(authority, PHRASE, "loopback") == Credential.PASSPHRASE.value
    for _ in range(SOURCE_FAILURES):
        _check(authority, "short", "loopback")
    assert datetime.fromisoformat(_locks(ledger, "loopback")[-1]) - wall.now() == SOURCE_LOCKOUT


@pytest.mark.req("owner.code.source-lockout")
def test_a_stranger_who_locks_every_other_source_cannot_lock_the_owner_out_of_the_channel(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, totp = _authority(tmp_path, ledger, wall)
    for n in range(MAX_FAILURES):
        assert _check(authority, "short", f"198.51.{n}.0/24") == CODE_WRONG
    assert _locks(ledger, "all")  # the global lock holds every source …
    assert _check(authority, PHRASE, "loopback") == LOCKED
    # … but the owner's channel, which only its own wrong codes lock.
    assert _check(authority, totp.at(wall.now()), OWNER_CHANNEL) == Credential.TOTP.value


@pytest.mark.req("owner.code.lock-alert")
def test_each_lock_is_announced_and_journalled_and_the_unlock_is_journalled(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    alerts: list[LockAlert] = []

    async def on_lock(alert: LockAlert) -> None:
        alerts.append(alert)

    authority, _ = _authority(tmp_path, ledger, wall, on_lock=on_lock)
    for _ in range(SOURCE_FAILURES):
        _check(authority, "short", "loopback")
    assert [(a.source, a.until) for a in alerts] == [("loopback", wall.now() + SOURCE_LOCKOUT)]
    assert alerts[0].as_json()["event"] == "owner_locked"
    assert _locks(ledger, "loopback") == [(wall.now() + SOURCE_LOCKOUT).isoformat()]
    undone = authority.unlock(by="ordergate")
    assert undone["sources_unlocked"] == 1 and undone["by"] == "ordergate"
    [entry] = [e for e in ledger.journal.entries(limit=10_000) if e.kind == "owner_unlocked"]
    assert entry.detail["by"] == "ordergate"
    assert _check(authority, PHRASE, "loopback") == Credential.PASSPHRASE.value


@pytest.mark.req("owner.code.scrypt-pool")
def test_a_scrypt_flood_never_runs_on_the_ledgers_threads_and_past_its_queue_is_refused_busy(
    tmp_path: Path,
    ledger: Ledger,
    wall: SteppedClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pool = ScryptPool(threads=2, queue=2)
    authority, _ = _authority(tmp_path, ledger, wall, scrypt=pool)
    held = threading.Event()
    running: list[str] = []
    lock = threading.Lock()
    most = [0]
    derive = passphrase_module._derive

    def slow(*args: Any, **kwargs: Any) -> bytes:
        with lock:
            running.append(threading.current_thread().name)
            most[0] = max(most[0], len(running))
        held.wait(BOUND_S)
        with lock:
            running.remove(threading.current_thread().name)
        return derive(*args, **kwargs)

    monkeypatch.setattr(passphrase_module, "_derive", slow)
    names: list[str] = []
    outcomes: list[str] = []

    async def attempt(n: int) -> None:
        with acting_from(f"192.0.{n}.0/24"):
            try:
                checked = await authority.check(WRONG, OwnerAct.APPROVE, digest=DIGEST)
                outcomes.append(checked.value)
            except OwnerRefused as refused:
                outcomes.append(refused.reason)

    async def flood() -> None:
        async with anyio.create_task_group() as tasks:
            for n in range(12):
                tasks.start_soon(attempt, n)
            with anyio.fail_after(BOUND_S):
                while outcomes.count(BUSY) < 8 or len(running) < 2:
                    await anyio.sleep(0)  # a checkpoint: the flood's tasks run
            # While scrypt is held, the ledger's pool is free for everyone else's reads.
            with anyio.fail_after(BOUND_S):
                await blocking(lambda: names.append(threading.current_thread().name))
            held.set()

    anyio.run(flood)
    assert outcomes.count(BUSY) == 8
    assert sorted(set(outcomes) - {BUSY}) == [CODE_WRONG]
    assert most[0] == 2
    assert names and names[0].startswith("ordergate-blocking")

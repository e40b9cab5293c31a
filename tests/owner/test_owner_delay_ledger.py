"""The owner's delays on the ledger (``Delays``): an act waits until ``effective_at``, is
claimed once however many replicas race for it, and a cancelled one is never claimed."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import Ledger
from ordergate.owner import (
    DEFAULT_LOOSEN_DELAY,
    Delays,
    DelaySettings,
    DelayState,
    OwnerAct,
    read_enrolment,
)

POLICY = {"text": "approval = 'never'\n", "sha256": "x", "credential": "totp"}


def _kinds(ledger: Ledger) -> list[str]:
    return [entry.kind for entry in ledger.journal.entries(limit=1000)]


@pytest.mark.req("owner.delay.loosening-waits")
def test_an_act_is_claimed_only_once_its_delay_has_passed(
    ledger: Ledger, wall: SteppedClock
) -> None:
    delays = Delays(ledger, clock=wall)
    waiting = delays.defer(OwnerAct.POLICY_APPLY, "apply a looser policy", POLICY)
    assert waiting is not None
    assert waiting.effective_at - waiting.authorised_at == DEFAULT_LOOSEN_DELAY
    assert "owner_act_delayed" in _kinds(ledger)
    wall.advance(DEFAULT_LOOSEN_DELAY - timedelta(seconds=1))
    assert delays.claim_due({OwnerAct.POLICY_APPLY}) == []
    wall.advance(timedelta(seconds=1))
    assert delays.claim_due({OwnerAct.ARM_LIVE}) == []  # not an act this process does
    [claimed] = delays.claim_due({OwnerAct.POLICY_APPLY})
    assert (claimed.id, claimed.state) == (waiting.id, DelayState.APPLIED)
    assert delays.pending() == []


@pytest.mark.req("owner.delay.loosening-waits")
def test_racing_replicas_claim_a_due_act_once(ledger: Ledger, wall: SteppedClock) -> None:
    Delays(ledger, clock=wall).defer(OwnerAct.POLICY_APPLY, "apply a looser policy", POLICY)
    wall.advance(DEFAULT_LOOSEN_DELAY)
    barrier = threading.Barrier(6)
    claimed: list[str] = []

    def replica() -> None:
        delays = Delays(ledger, clock=wall)
        barrier.wait(timeout=30)
        claimed.extend(a.id for a in delays.claim_due({OwnerAct.POLICY_APPLY}))

    threads = [threading.Thread(target=replica) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(claimed) == 1
    assert _kinds(ledger).count("owner_act_effective") == 1


@pytest.mark.req("owner.delay.cancelled-by-tightening")
def test_a_cancelled_act_is_never_claimed(ledger: Ledger, wall: SteppedClock) -> None:
    delays = Delays(ledger, clock=wall)
    first = delays.defer(OwnerAct.TOKEN_MINT, "mint", {"caller": "a"})
    second = delays.defer(OwnerAct.POLICY_APPLY, "apply", POLICY)
    assert first is not None and second is not None
    [one] = delays.cancel(first.id, why="the owner cancelled", by="unverified")
    assert one.state is DelayState.CANCELLED
    assert [a.id for a in delays.cancel(None, why="a pause", by="unverified")] == [second.id]
    wall.advance(DEFAULT_LOOSEN_DELAY)
    assert delays.claim_due({OwnerAct.TOKEN_MINT, OwnerAct.POLICY_APPLY}) == []
    assert _kinds(ledger).count("owner_act_cancelled") == 2


def test_a_trading_token_is_collected_once_after_its_delay(
    ledger: Ledger, wall: SteppedClock
) -> None:
    delays = Delays(ledger, clock=wall)
    request = {"caller": "nightly", "profile": "trader", "ttl_s": 600, "connection": None}
    delays.defer(OwnerAct.TOKEN_MINT, "mint", request)
    assert delays.collect(OwnerAct.TOKEN_MINT, request) is None  # still waiting
    wall.advance(DEFAULT_LOOSEN_DELAY)
    delays.claim_due({OwnerAct.TOKEN_MINT})
    assert delays.collect(OwnerAct.TOKEN_MINT, {**request, "profile": "admin"}) is None
    assert delays.collect(OwnerAct.TOKEN_MINT, request) is not None
    assert delays.collect(OwnerAct.TOKEN_MINT, request) is None


def test_no_delay_set_by_the_first_enrolment_means_the_act_is_done_at_once(
    ledger: Ledger, wall: SteppedClock
) -> None:
    delays = Delays(ledger, clock=wall)
    assert delays.ask(DelaySettings(timedelta(0)), first=True) is None
    assert delays.defer(OwnerAct.POLICY_APPLY, "apply", POLICY) is None


def test_an_enrolment_written_before_delays_asks_for_the_defaults(tmp_path: Path) -> None:
    from owner_testkit import enrol

    enrol(tmp_path, passphrase=None)
    path = tmp_path / "owner.json"
    document = json.loads(path.read_text())
    document.pop("delays")
    path.write_text(json.dumps(document))
    enrolment = read_enrolment(path)
    assert enrolment is not None and enrolment.delays == DelaySettings()
    document["delays"] = {"loosen_delay_s": 60, "approve_above": "250.50"}
    path.write_text(json.dumps(document))
    enrolment = read_enrolment(path)
    assert enrolment is not None
    assert enrolment.delays == DelaySettings(timedelta(minutes=1), Decimal("250.50"))

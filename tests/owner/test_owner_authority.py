"""``OwnerAuthority``: one check per owner act — single-use codes, the lockout, the journal."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path

import pyotp
import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import Ledger
from ordergate.owner import (
    CODE_MISSING,
    CODE_REPLAYED,
    CODE_SPENT,
    CODE_WRONG,
    LOCKED,
    LOCKOUT,
    MAX_FAILURES,
    NOT_ENROLLED,
    Credential,
    OwnerAct,
    OwnerAuthority,
    OwnerRefused,
    act_digest,
    acting_from,
    new_enrolment,
    write_enrolment,
)

PHRASE = "correct horse battery staple"
DIGEST = act_digest("approve", {"approval_id": "a1"})
OTHER = act_digest("policy_apply", {"text": "approval = 'never'"})


def _authority(tmp_path: Path, ledger: Ledger, wall: SteppedClock, **enrol: object):
    path = tmp_path / "owner.json"
    enrolment = new_enrolment(passphrase=enrol.get("passphrase"), now=wall.now())  # type: ignore[arg-type]
    write_enrolment(path, enrolment)
    totp = pyotp.TOTP(enrolment.totp_secret.reveal())
    return OwnerAuthority(enrolment_path=path, ledger=ledger, clock=wall), totp


def _refusal(
    authority: OwnerAuthority,
    code: str | None,
    act: OwnerAct,
    *,
    source: str = "one",
    digest: str = OTHER,
) -> str:
    with acting_from(source), pytest.raises(OwnerRefused) as refused:
        authority.authorize(code, act, digest=digest)
    return refused.value.reason


def _owner_entries(ledger: Ledger) -> list[dict[str, object]]:
    return [e.detail for e in ledger.journal.entries(limit=1000) if e.kind == "owner_act"]


@pytest.mark.req("owner.code.journalled-without-code")
def test_a_current_code_authorises_the_act_and_the_journal_names_act_and_credential_only(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, totp = _authority(tmp_path, ledger, wall)
    code = totp.at(wall.now())
    assert authority.authorize(
        code, OwnerAct.APPROVE, detail={"approval_id": "a1"}, digest=DIGEST
    ) is (Credential.TOTP)
    [entry] = _owner_entries(ledger)
    assert entry["act"] == "approve" and entry["credential"] == "totp"
    assert entry["outcome"] == "authorised"
    assert entry["detail"] == {"approval_id": "a1", "digest": DIGEST}
    everything = json.dumps([e.detail for e in ledger.journal.entries(limit=1000)])
    assert code not in everything and totp.secret not in everything


@pytest.mark.req("owner.code.single-use")
@pytest.mark.req("owner.code.bound-to-act")
def test_a_code_is_spent_on_one_act_and_every_earlier_step_is_a_replay(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, totp = _authority(tmp_path, ledger, wall)
    ahead = totp.at(wall.now() + timedelta(seconds=30))
    assert authority.authorize(ahead, OwnerAct.RESUME, digest=DIGEST) is Credential.TOTP
    assert _refusal(authority, ahead, OwnerAct.RESUME) == CODE_SPENT
    earlier = totp.at(wall.now())
    assert _refusal(authority, earlier, OwnerAct.RESUME, digest=DIGEST) == CODE_REPLAYED
    # The same code for the same act is a retry: authorised again (the act answers its first
    # outcome; it never runs twice).
    assert authority.authorize(ahead, OwnerAct.RESUME, digest=DIGEST) is Credential.TOTP
    wall.advance(timedelta(seconds=60))
    assert (
        authority.authorize(totp.at(wall.now()), OwnerAct.RESUME, digest=DIGEST) is Credential.TOTP
    )


@pytest.mark.req("owner.code.lockout")
def test_five_wrong_codes_lock_owner_acts_for_fifteen_minutes_even_for_the_right_code(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, totp = _authority(tmp_path, ledger, wall)
    # From five sources (each under its own limit): the global lockout counts them all.
    for n in range(MAX_FAILURES):
        wrong = _refusal(authority, "wrong passphrase!", OwnerAct.APPROVE, source=f"s{n}")
        assert wrong == CODE_WRONG
    assert authority.status().locked_until == wall.now() + LOCKOUT
    assert _refusal(authority, totp.at(wall.now()), OwnerAct.APPROVE, source="new") == LOCKED
    assert [e.kind for e in ledger.journal.entries()].count("owner_locked") == 1
    wall.advance(LOCKOUT + timedelta(seconds=1))
    assert (
        authority.authorize(totp.at(wall.now()), OwnerAct.APPROVE, digest=DIGEST) is Credential.TOTP
    )


def test_wrong_codes_spread_beyond_the_window_do_not_lock(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, totp = _authority(tmp_path, ledger, wall)
    for n in range(MAX_FAILURES * 2):
        wrong = _refusal(authority, "not the passphrase", OwnerAct.RESUME, source=f"s{n % 2}")
        assert wrong == CODE_WRONG
        wall.advance(timedelta(minutes=8))
    assert authority.status().locked_until is None
    assert (
        authority.authorize(totp.at(wall.now()), OwnerAct.RESUME, digest=DIGEST) is Credential.TOTP
    )


@pytest.mark.req("owner.code.required")
def test_without_an_enrolment_or_a_code_every_owner_act_is_refused(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    nobody = OwnerAuthority(enrolment_path=tmp_path / "none.json", ledger=ledger, clock=wall)
    assert _refusal(nobody, "123456", OwnerAct.CONSENT) == NOT_ENROLLED
    authority, _ = _authority(tmp_path, ledger, wall)
    assert _refusal(authority, None, OwnerAct.CONSENT) == CODE_MISSING
    assert _refusal(authority, "", OwnerAct.CONSENT) == CODE_MISSING
    assert not nobody.status().enrolled and authority.status().enrolled


def test_the_passphrase_authorises_when_enrolled_and_is_wrong_when_not(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    with_phrase, _ = _authority(tmp_path, ledger, wall, passphrase=PHRASE)
    assert (
        with_phrase.authorize(PHRASE, OwnerAct.TOKEN_MINT, digest=DIGEST) is Credential.PASSPHRASE
    )
    assert (
        with_phrase.authorize(PHRASE, OwnerAct.TOKEN_MINT, digest=DIGEST) is Credential.PASSPHRASE
    )
    assert with_phrase.status().passphrase
    without, _ = _authority(tmp_path, ledger, wall)
    assert _refusal(without, PHRASE, OwnerAct.TOKEN_MINT) == CODE_WRONG


@pytest.mark.req("owner.code.single-use")
def test_one_code_raced_from_eight_threads_is_accepted_once(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, totp = _authority(tmp_path, ledger, wall)
    code = totp.at(wall.now())
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def attempt(source: str) -> None:
        barrier.wait(timeout=30)
        digest = act_digest(OwnerAct.APPROVE, {"approval_id": source})
        try:
            with acting_from(source):
                outcomes.append(authority.authorize(code, OwnerAct.APPROVE, digest=digest).value)
        except OwnerRefused as refused:
            outcomes.append(refused.reason)

    threads = [threading.Thread(target=attempt, args=(f"s{n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    # Accepted for one act; for every other act it is spent (and, a spent code counting as a
    # wrong one, the fifth locks owner acts for the rest).
    assert outcomes.count("totp") == 1 and len(outcomes) == 8
    assert set(outcomes) - {"totp"} <= {CODE_SPENT, LOCKED}
    assert outcomes.count(CODE_SPENT) >= MAX_FAILURES - 1


def test_enrolling_again_starts_the_new_secrets_codes_afresh(
    tmp_path: Path, ledger: Ledger, wall: SteppedClock
) -> None:
    authority, totp = _authority(tmp_path, ledger, wall)
    assert (
        authority.authorize(totp.at(wall.now()), OwnerAct.ENROL, digest=DIGEST) is Credential.TOTP
    )
    fresh = new_enrolment(passphrase=None, now=wall.now())
    write_enrolment(authority.enrolment_path, fresh)
    authority.enrolled(replaced=True, credential=Credential.TOTP)
    again = pyotp.TOTP(fresh.totp_secret.reveal()).at(wall.now())
    assert authority.authorize(again, OwnerAct.RESUME, digest=DIGEST) is Credential.TOTP
    kinds = [entry.kind for entry in ledger.journal.entries()]
    assert "owner_enrolled" in kinds

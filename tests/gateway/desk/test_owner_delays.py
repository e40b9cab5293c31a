"""Loosening waits (issue 23 §4): an owner act that loosens — a looser policy, arming live, a
trading caller token, an approval above the owner's threshold — is authorised with the code,
announced at once, and takes effect only after the owner's delay (security time, stepped
here); a tightening, a pause or the owner's cancel (no code) ends it unmade."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from capture_testkit import capture_server
from desk_kit import HELD_POLICY, Desk, owner_desk

from ordergate.owner import DEFAULT_LOOSEN_DELAY, Delays, DelaySettings
from ordergate.policy import DEFAULT_POLICY_TOML

LOOSER = DEFAULT_POLICY_TOML.replace('max_order_usd = "100"', 'max_order_usd = "900"')
LIVE = DEFAULT_POLICY_TOML.replace('mode = "paper"', 'mode = "live"').replace(
    "real_money = false", "real_money = true"
)
TRADER = {"caller": "nightly", "profile": "trader", "ttl_s": 600}


def _in_force(desk: Desk) -> str | None:
    applied = desk.ledger.controls.applied_policy()
    return applied.text if applied is not None else None


def _kinds(desk: Desk) -> list[str]:
    return [e.kind for e in desk.ledger.journal.entries(limit=1000)]


@pytest.mark.req("owner.delay.loosening-waits")
def test_a_looser_policy_spent_with_a_code_is_not_in_force_until_the_delay_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        before = _in_force(desk)
        waiting = desk.act("policy_apply", {"text": LOOSER}, desk.codes.next()).json()
        delayed = waiting["delayed"]
        assert delayed["state"] == "pending"
        assert delayed["seconds_left"] == int(DEFAULT_LOOSEN_DELAY.total_seconds())
        assert "owner_act_delayed" in _kinds(desk)
        [listed] = desk.get("/delayed").json()["delayed"]
        assert listed["id"] == delayed["id"]
        status = desk.get("/status").json()
        assert status["waiting_acts"] == 1 and status["delays"]["loosen_delay_s"] == 900
        assert _in_force(desk) == before
        assert "max_order_usd" in desk.place()["reasons"] or desk.place()["status"] != "filled"
        desk.pass_delay(DEFAULT_LOOSEN_DELAY - timedelta(seconds=2))
        assert _in_force(desk) == before  # one second short
        desk.pass_delay(timedelta(0))
        assert _in_force(desk) == LOOSER
        assert "owner_act_effective" in _kinds(desk)
        assert desk.get("/delayed").json()["delayed"] == []


@pytest.mark.req("owner.delay.cancelled-by-tightening")
def test_a_waiting_looser_policy_is_cancelled_by_a_policy_that_only_tightens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        desk.act("policy_apply", {"text": LOOSER}, desk.codes.next())
        tighter = HELD_POLICY + '[limits]\nmax_order_usd = "2"\n'
        applied = desk.act("policy_apply", {"text": tighter}).json()
        assert applied["applied"] is True and len(applied["cancelled"]) == 1
        desk.pass_delay()
        assert _in_force(desk) == tighter
        assert "owner_act_cancelled" in _kinds(desk)


@pytest.mark.req("owner.delay.cancelled-by-tightening")
def test_a_pause_cancels_what_waits_and_the_owner_cancels_with_no_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        before = _in_force(desk)
        desk.act("policy_apply", {"text": LOOSER}, desk.codes.next())
        paused = desk.post("/pause", {"reason": "stop"}).json()
        assert [a["act"] for a in paused["cancelled"]] == ["policy_apply"]
        waiting = desk.act("policy_apply", {"text": LIVE}, desk.codes.next()).json()
        unknown = desk.post("/delayed/cancel", {"id": "no-such-act"})
        assert (unknown.status_code, unknown.json()["error"]["code"]) == (
            404,
            "unknown_delayed_act",
        )
        cancelled = desk.post("/delayed/cancel", {"id": waiting["delayed"]["id"]}).json()
        assert [a["act"] for a in cancelled["cancelled"]] == ["arm_live"]
        desk.pass_delay()
        assert _in_force(desk) == before


@pytest.mark.req("owner.delay.loosening-waits")
def test_arming_live_waits_the_delay_like_any_loosening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        waiting = desk.act("policy_apply", {"text": LIVE}, desk.codes.next()).json()
        assert waiting["delayed"]["act"] == "arm_live"
        assert _in_force(desk) != LIVE
        desk.pass_delay()
        assert _in_force(desk) == LIVE


@pytest.mark.req("owner.delay.loosening-waits")
def test_a_trading_token_minted_with_a_code_is_handed_out_only_after_the_delay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        waiting = desk.act("token_mint", TRADER, desk.codes.next()).json()
        assert "token" not in waiting and waiting["delayed"]["act"] == "token_mint"
        early = desk.act("token_mint", TRADER)
        assert early.json()["error"]["code"] == "owner_code_required"
        desk.pass_delay()
        minted = desk.act("token_mint", TRADER).json()
        assert minted["token"].count(".") == 1
        again = desk.act("token_mint", TRADER)  # collected once
        assert again.json()["error"]["code"] == "owner_code_required"
        assert "owner_act_collected" in _kinds(desk)


@pytest.mark.req("owner.delay.loosening-waits")
def test_an_approval_above_the_owners_threshold_waits_the_delay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        Delays(desk.ledger).ask(DelaySettings(DEFAULT_LOOSEN_DELAY, Decimal("1")))
        held = desk.held_order()  # $5 of SPY, above $1
        params = {"approval_id": held["approval_id"]}
        waiting = desk.act("approve", params, desk.codes.next()).json()
        assert waiting["delayed"]["act"] == "approve"
        again = desk.act("approve", params, desk.codes.next())  # refused before any code
        assert (again.status_code, again.json()["error"]["code"]) == (409, "approval_waiting")
        assert desk.ledger.approvals.get(held["approval_id"]).state.value == "pending"
        desk.pass_delay()  # longer than the approval's own time to live: it was held open
        assert desk.ledger.approvals.get(held["approval_id"]).state.value == "approved"
        assert "owner_act_effective" in _kinds(desk)


def test_looser_delay_settings_wait_and_tighter_ones_hold_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        delays = Delays(desk.ledger, clock=desk.clock)
        longer = DelaySettings(timedelta(hours=1), Decimal("50"))
        assert delays.ask(longer) is None
        assert delays.settings() == longer
        shorter = DelaySettings(timedelta(minutes=1), Decimal("50"))
        waiting = delays.ask(shorter)
        assert waiting is not None and waiting.effective_at - waiting.authorised_at == timedelta(
            hours=1
        )
        assert delays.settings() == longer
        desk.pass_delay(timedelta(hours=1))
        assert delays.settings() == shorter


@pytest.mark.req("owner.delay.announced")
def test_a_delayed_act_is_announced_on_the_webhook_when_it_waits_and_when_it_is_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with capture_server() as hook, owner_desk(tmp_path, monkeypatch, webhook_url=hook.url) as desk:
        waiting = desk.act("policy_apply", {"text": LOOSER}, desk.codes.next()).json()
        desk.post("/delayed/cancel", {})
    events = [json.loads(r.body) for r in hook.requests if r.method == "POST"]
    seen = [(e["event"], e["act"]["id"]) for e in events if "act" in e]
    assert seen == [
        ("owner_act_delayed", waiting["delayed"]["id"]),
        ("owner_act_cancelled", waiting["delayed"]["id"]),
    ]

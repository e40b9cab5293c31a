"""The owner routes on a running gateway's owner channel: owner acts are prepared, then
authorised with the owner code spent on that act only; safer acts need none; nothing of it
serves a browser, and the TCP listener serves none of it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx2
import pytest
from desk_kit import owner_desk
from turn_testkit import impatient_turns, turn_held_elsewhere

from ordergate.policy import DEFAULT_POLICY_TOML


@pytest.mark.req("owner.act.approve")
@pytest.mark.req("owner.act.prepared")
def test_a_held_order_is_placed_only_when_the_owner_authorises_its_prepared_approval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        params = {"approval_id": held["approval_id"]}
        prepared = desk.post("/prepare", {"act": "approve", "params": params}).json()
        assert prepared["needs_code"] is True
        assert prepared["summary"][0] == "approve: buy $5 of SPY (market)"
        assert prepared["summary"][2] == f"filing: {held['filing_id']}"
        ask = {"act_id": prepared["act_id"], "digest": prepared["digest"]}
        assert desk.post("/authorize", ask).json()["error"]["code"] == "owner_code_required"
        wrong = desk.post("/authorize", {**ask, "owner_code": desk.codes.wrong()})
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "owner_code_wrong")
        code = desk.codes.next()
        approved = desk.post("/authorize", {**ask, "owner_code": code})
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "submitted"
        assert desk.settled(held["filing_id"]) == "filled"
        # The same code for the same act is a retry: the first answer, the order placed once.
        retried = desk.post("/authorize", {**ask, "owner_code": code})
        assert retried.json() == approved.json()
        again = desk.act("approve", params, desk.codes.next())
        assert (again.status_code, again.json()["error"]["code"]) == (409, "approval_decided")
        decided = desk.ledger.approvals.get(held["approval_id"])
        assert decided.decided_by == "owner"


@pytest.mark.req("owner.code.bound-to-act")
def test_a_code_typed_for_one_prepared_act_is_refused_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        approve = desk.post(
            "/prepare", {"act": "approve", "params": {"approval_id": held["approval_id"]}}
        ).json()
        looser = DEFAULT_POLICY_TOML.replace('max_order_usd = "100"', 'max_order_usd = "9000"')
        loosen = desk.post("/prepare", {"act": "policy_apply", "params": {"text": looser}}).json()
        code = desk.codes.next()
        done = desk.post(
            "/authorize",
            {"act_id": approve["act_id"], "digest": approve["digest"], "owner_code": code},
        )
        assert done.status_code == 200, done.text
        spent = desk.post(
            "/authorize",
            {"act_id": loosen["act_id"], "digest": loosen["digest"], "owner_code": code},
        )
        assert (spent.status_code, spent.json()["error"]["code"]) == (403, "owner_code_spent")
        # A digest that is not the prepared act's is refused before any code is looked at.
        forged = desk.post(
            "/authorize",
            {"act_id": loosen["act_id"], "digest": approve["digest"], "owner_code": code},
        )
        assert (forged.status_code, forged.json()["error"]["code"]) == (409, "prepared_act_digest")
        applied = desk.ledger.controls.applied_policy()
        assert applied is not None and "9000" not in applied.text
        acts = [e.detail for e in desk.ledger.journal.entries() if e.kind == "owner_act"]
        assert acts[-1]["reason"] == "owner_code_spent"
        assert acts[-1]["detail"]["digest"] == loosen["digest"]


@pytest.mark.req("owner.act.prepared")
def test_a_prepared_approval_whose_filing_changed_after_prepare_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        prepared = desk.post(
            "/prepare", {"act": "approve", "params": {"approval_id": held["approval_id"]}}
        ).json()
        with sqlite3.connect(desk.home / "ledger.db") as db:  # the filing's terms, edited
            (terms,) = db.execute(
                "SELECT terms FROM filings WHERE id = ?", (held["filing_id"],)
            ).fetchone()
            edited = json.dumps({**json.loads(terms), "dollar_amount": "5000"})
            db.execute("UPDATE filings SET terms = ? WHERE id = ?", (edited, held["filing_id"]))
        changed = desk.post(
            "/authorize",
            {
                "act_id": prepared["act_id"],
                "digest": prepared["digest"],
                "owner_code": desk.codes.next(),
            },
        )
        assert (changed.status_code, changed.json()["error"]["code"]) == (
            409,
            "prepared_act_changed",
        )
        assert desk.ledger.approvals.get(held["approval_id"]).state.value == "pending"


@pytest.mark.req("owner.act.safer-needs-no-code")
def test_approve_and_deny_wait_for_the_accounts_turn_and_past_its_bound_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    impatient_turns(monkeypatch)
    with owner_desk(tmp_path, monkeypatch) as desk:
        held = desk.held_order()
        params = {"approval_id": held["approval_id"]}
        database = desk.ledger.engine.url.database
        assert database is not None
        with turn_held_elsewhere(database):
            denied = desk.post(f"/approvals/{held['approval_id']}/deny")
            approved = desk.act("approve", params, desk.codes.passphrase)
        assert (denied.status_code, denied.json()["error"]["code"]) == (409, "account_busy")
        assert (approved.status_code, approved.json()["error"]["code"]) == (409, "account_busy")
        assert desk.ledger.approvals.get(held["approval_id"]).decided_by is None
        placed = desk.act("approve", params, desk.codes.passphrase)
        assert placed.json()["status"] == "submitted", placed.text
        assert desk.settled(held["filing_id"]) == "filled"


def test_deny_pause_and_revoke_need_no_code_but_resume_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        held = desk.held_order()
        denied = desk.post(f"/approvals/{held['approval_id']}/deny")
        assert denied.status_code == 200 and denied.json()["status"] == "denied"
        assert desk.post("/pause", {"reason": "lunch"}).json()["paused"] is True
        refused = desk.place()
        assert refused["reasons"] == ["paused"]
        assert desk.act("resume", {}).json()["error"]["code"] == "owner_code_required"
        assert desk.act("resume", {}, desk.codes.passphrase).json()["changed"]
        assert desk.ledger.controls.pause_state().paused is False


@pytest.mark.req("owner.act.policy")
def test_a_tighter_policy_applies_without_a_code_and_takes_effect_on_the_next_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = 'approval = "never"\n[symbols]\nallow = ["SPY"]\n'
    with owner_desk(tmp_path, monkeypatch, policy=policy) as desk:
        tighter = policy + '[limits]\nmax_order_usd = "2"\n'
        applied = desk.act("policy_apply", {"text": tighter})
        assert applied.status_code == 200, applied.text
        assert applied.json()["loosened"] == [] and applied.json()["credential"] == "none"
        data = desk.place()
        assert "max_order_usd" in data["reasons"]
        assert (desk.home / "policy.toml").read_text() == tighter


@pytest.mark.req("owner.act.policy")
def test_a_looser_policy_needs_the_code_and_the_refusal_names_nothing_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        before = desk.ledger.controls.applied_policy()
        looser = DEFAULT_POLICY_TOML.replace('max_order_usd = "100"', 'max_order_usd = "900"')
        prepared = desk.post("/prepare", {"act": "policy_apply", "params": {"text": looser}})
        # The summary marks each key that loosens.
        assert "  limits.max_order_usd (loosens)" in prepared.json()["summary"]
        refused = desk.act("policy_apply", {"text": looser})
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            401,
            "owner_code_required",
        )
        assert desk.ledger.controls.applied_policy() == before
        waiting = desk.act("policy_apply", {"text": looser}, desk.codes.next()).json()
        # The desk's policy allows SPY only and approves always; the looser text is the
        # defaults' (SPY and VTI) with a higher cap.
        assert "max_order_usd, symbols.allow" in waiting["delayed"]["summary"]
        desk.pass_delay()
        entries = desk.ledger.journal.entries()
        applied = [e.detail for e in entries if e.kind == "policy_applied"][-1]
        assert applied["loosened"] == ["limits.max_order_usd", "symbols.allow"]
        assert applied["credential"] == "totp"


@pytest.mark.req("owner.act.arm-live")
def test_a_policy_that_arms_live_is_journalled_as_arming_and_waits_for_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        live = DEFAULT_POLICY_TOML.replace('mode = "paper"', 'mode = "live"').replace(
            "real_money = false", "real_money = true"
        )
        waiting = desk.act("policy_apply", {"text": live}, desk.codes.next()).json()
        assert waiting["delayed"]["act"] == "arm_live"
        desk.pass_delay()
        applied = desk.ledger.controls.applied_policy()
        assert applied is not None and applied.text == live
        acts = [e.detail for e in desk.ledger.journal.entries() if e.kind == "owner_act"]
        assert acts[-1]["act"] == "arm_live" and acts[-1]["outcome"] == "authorised"


@pytest.mark.req("owner.act.token-mint")
def test_a_caller_token_that_can_trade_needs_the_code_and_a_read_only_one_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        ask = {"caller": "nightly", "profile": "trader", "ttl_s": 600}
        assert desk.act("token_mint", ask).json()["error"]["code"] == "owner_code_required"
        waiting = desk.act("token_mint", ask, desk.codes.next()).json()
        assert waiting["delayed"]["act"] == "token_mint" and "token" not in waiting
        desk.pass_delay()
        minted = desk.act("token_mint", ask).json()  # collected: the code was given once
        assert minted["profile"] == "trader" and minted["token"].count(".") == 1
        with sqlite3.connect(desk.home / "ledger.db") as db:  # the prepared act keeps no token
            kept = [row[0] for row in db.execute("SELECT outcome FROM owner_prepared_acts")]
        assert kept and all(minted["token"] not in (outcome or "") for outcome in kept)
        reader = desk.act("token_mint", {**ask, "caller": "reader", "profile": "monitor"}).json()
        assert reader["profile"] == "monitor"
        unknown = desk.post("/prepare", {"act": "token_mint", "params": {**ask, "profile": "no"}})
        assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "unknown_profile")


def test_connections_are_listed_by_client_name_and_revoked_without_a_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        desk.connected_client("Claude")
        [listed] = desk.get("/connections").json()["connections"]
        assert (listed["client_name"], listed["profile"], listed["state"]) == (
            "Claude",
            "monitor",
            "live",
        )
        revoked = desk.post(f"/connections/{listed['connection_id']}/revoke").json()
        assert revoked["revoked"] is True
        assert desk.get("/connections").json()["connections"] == []
        kinds = [entry.kind for entry in desk.ledger.journal.entries()]
        assert "connection_revoked" in kinds


@pytest.mark.req("owner.route.local-only")
def test_the_owner_channel_refuses_a_browser_and_a_body_that_is_not_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        browser = desk.post("/pause", {"reason": "x"}, origin="http://127.0.0.1:1")
        assert (browser.status_code, browser.json()["error"]["code"]) == (403, "browser_refused")
        form = desk.post("/pause", None, **{"content-type": "application/x-www-form-urlencoded"})
        assert (form.status_code, form.json()["error"]["code"]) == (415, "json_required")
        assert desk.ledger.controls.pause_state().paused is False
        status = desk.get("/status").json()
        assert status["owner"]["enrolled"] is True and status["paused"] is False
        assert desk.codes.secret not in json.dumps(status)


@pytest.mark.req("owner.route.local-only")
@pytest.mark.req("owner.channel.fake-gateway")
def test_the_gateways_tcp_listener_serves_no_owner_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        held = desk.held_order()
        with httpx2.Client(timeout=30) as http:
            answers = [
                http.get(f"{desk.url}/owner/status").status_code,
                http.post(f"{desk.url}/owner/prepare", json={"act": "resume"}).status_code,
                http.post(
                    f"{desk.url}/owner/approvals/{held['approval_id']}/approve",
                    json={"owner_code": desk.codes.next()},
                ).status_code,
            ]
        assert answers == [404, 404, 404]
        assert desk.get("/status").status_code == 200  # the channel serves them

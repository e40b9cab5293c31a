"""The owner route on a running gateway: owner acts need the owner code, safer acts none, and
nothing of it serves a browser or a peer beyond loopback."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
import pytest
from desk_kit import owner_desk

from ordergate.policy import DEFAULT_POLICY_TOML


@pytest.mark.req("owner.act.approve")
def test_a_held_order_is_placed_only_when_the_owner_approves_with_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        path = f"/approvals/{held['approval_id']}/approve"
        assert desk.post(path).json()["error"]["code"] == "owner_code_required"
        wrong = desk.post(path, {"owner_code": desk.codes.wrong()})
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "owner_code_wrong")
        approved = desk.post(path, {"owner_code": desk.codes.next()})
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "filled"
        again = desk.post(path, {"owner_code": desk.codes.next()})
        assert (again.status_code, again.json()["error"]["code"]) == (409, "approval_decided")
        decided = desk.ledger.approvals.get(held["approval_id"])
        assert decided.decided_by == "owner"


@pytest.mark.req("owner.act.safer-needs-no-code")
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
        assert desk.post("/resume").json()["error"]["code"] == "owner_code_required"
        assert desk.post("/resume", {"owner_code": desk.codes.passphrase}).json()["changed"]
        assert desk.ledger.controls.pause_state().paused is False


@pytest.mark.req("owner.act.policy")
def test_a_tighter_policy_applies_without_a_code_and_takes_effect_on_the_next_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = 'approval = "never"\n[symbols]\nallow = ["SPY"]\n'
    with owner_desk(tmp_path, monkeypatch, policy=policy) as desk:
        tighter = policy + '[limits]\nmax_order_usd = "2"\n'
        applied = desk.post("/policy", {"text": tighter})
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
        refused = desk.post("/policy", {"text": looser})
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            401,
            "owner_code_required",
        )
        assert desk.ledger.controls.applied_policy() == before
        waiting = desk.post("/policy", {"text": looser, "owner_code": desk.codes.next()}).json()
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
        waiting = desk.post("/policy", {"text": live, "owner_code": desk.codes.next()}).json()
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
        assert desk.post("/tokens", ask).json()["error"]["code"] == "owner_code_required"
        waiting = desk.post("/tokens", {**ask, "owner_code": desk.codes.next()}).json()
        assert waiting["delayed"]["act"] == "token_mint" and "token" not in waiting
        desk.pass_delay()
        minted = desk.post("/tokens", ask).json()  # collected: the code was given once
        assert minted["profile"] == "trader" and minted["token"].count(".") == 1
        reader = desk.post("/tokens", {**ask, "caller": "reader", "profile": "monitor"}).json()
        assert reader["profile"] == "monitor"
        unknown = desk.post("/tokens", {**ask, "profile": "nope"})
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
def test_the_owner_route_refuses_a_browser_and_a_body_that_is_not_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        browser = desk.post("/pause", {"reason": "x"}, origin="http://127.0.0.1:1")
        assert (browser.status_code, browser.json()["error"]["code"]) == (403, "browser_refused")
        with httpx2.Client(timeout=30) as http:
            form = http.post(f"{desk.url}/owner/resume", data={"owner_code": "123456"})
        assert (form.status_code, form.json()["error"]["code"]) == (415, "json_required")
        assert desk.ledger.controls.pause_state().paused is False
        status = desk.get("/status").json()
        assert status["owner"]["enrolled"] is True and status["paused"] is False
        assert desk.codes.secret not in json.dumps(status)


class _Untouchable:
    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the desk was reached ({name}) for a request it must refuse")


@pytest.mark.req("owner.route.local-only")
def test_the_owner_route_answers_no_peer_beyond_loopback() -> None:
    from starlette.applications import Starlette

    from ordergate.gateway.desk import owner_routes

    app = Starlette(routes=owner_routes(_Untouchable()))  # type: ignore[arg-type]

    async def ask() -> list[tuple[int, str]]:
        transport = httpx2.ASGITransport(app=app, client=("192.0.2.7", 40000))
        async with httpx2.AsyncClient(transport=transport, base_url="http://gw.example") as http:
            answers = [
                await http.request(method, path, json={"owner_code": "123456"})
                for method, path in (("GET", "/owner/status"), ("POST", "/owner/resume"))
            ]
        return [(answer.status_code, answer.json()["error"]["code"]) for answer in answers]

    assert anyio.run(ask) == [(403, "not_local"), (403, "not_local")]

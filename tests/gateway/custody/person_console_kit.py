"""A person's browser on a hosted rail's console (at ``localhost``, the passkeys' relying
party), a connection made with a software passkey registered on the way, and an order of
theirs held for approval."""

from __future__ import annotations

import re
from typing import Any

import httpx2
from custody_kit import BOUND_S, Custodian
from mcp_http_testkit import McpSession
from passkey_testkit import SoftPasskey

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
KEY = re.compile(r'<meta name="console-key" content="([^"]+)"')
HELD = 'approval = "always"\n[symbols]\nallow = ["SPY"]\n'


def localhost(rail: Custodian) -> str:
    return rail.url.replace("127.0.0.1", "localhost")


def connect_with_passkey(
    rail: Custodian, profile: str = "trader", user: str | None = None
) -> tuple[SoftPasskey, str, str]:
    """The whole consent flow under ``profile`` (signing in upstream as the venue's ``user``),
    a passkey registered on the way: the passkey, the connection's id and the client's access
    token."""
    passkey = SoftPasskey(localhost(rail))
    before = {row["id"] for row in rail.rows()}
    token = rail.connect(passkey=passkey, profile=profile, user=user)
    [row] = [r for r in rail.rows() if r["id"] not in before]
    assert row["person_passkey_sealed"] is not None
    return passkey, str(row["id"]), token


class PersonConsole:
    """A person's browser on the console at ``localhost`` (the passkeys' relying party)."""

    def __init__(self, rail: Custodian) -> None:
        self.base = localhost(rail)
        self.http = httpx2.Client(base_url=self.base, timeout=BOUND_S, follow_redirects=False)

    def close(self) -> None:
        self.http.close()

    def get(self, path: str) -> httpx2.Response:
        return self.http.get(f"/console{path}")

    def post_json(self, path: str, body: Any, csrf: str) -> httpx2.Response:
        headers = {"origin": self.base, "x-csrf-token": csrf}
        return self.http.post(f"/console{path}", json=body, headers=headers)

    def csrf(self, path: str = "/sign-in") -> str:
        found = CSRF.search(self.get(path).text)
        assert found is not None
        return found.group(1)

    def sign_in(self, passkey: SoftPasskey) -> httpx2.Response:
        csrf = self.csrf()
        options = self.post_json("/person/options", {}, csrf)
        assert options.status_code == 200, options.text
        signed = self.post_json("/person/sign-in", passkey.get(options.json()), csrf)
        if signed.status_code == 200:
            self.http.headers["x-console-key"] = signed.json()["key"]
        return signed

    def sign_in_operator(self, code: str) -> None:
        """This browser signed in to the operator's console with the owner ``code``."""
        signed = self.http.post(
            "/console/sign-in",
            data={"csrf": self.csrf(), "owner_code": code},
            headers={"origin": self.base},
        )
        found = KEY.search(signed.text)
        assert found is not None, signed.text
        self.http.headers["x-console-key"] = found.group(1)

    def approve_with_passkey(
        self, passkey: SoftPasskey, approval_id: str
    ) -> tuple[int, dict[str, Any]]:
        """A waiting order approved on this console, signed by ``passkey``: the status of
        the first step refused, or of the approval, and the approval's answer when 200."""
        csrf = self.csrf("/mine")
        asked = {"purpose": "approve", "approval_id": approval_id}
        options = self.post_json("/mine/passkey/options", asked, csrf)
        if options.status_code != 200:
            return options.status_code, {}
        approved = self.post_json(
            f"/mine/approvals/{approval_id}/approve", passkey.get(options.json()), csrf
        )
        return approved.status_code, approved.json() if approved.status_code == 200 else {}


def place_held(url: str, token: str) -> dict[str, Any]:
    """A five-dollar SPY buy through ``/mcp`` on the connection of ``token``: its held
    answer (``approval_id``)."""
    session = McpSession(url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        order = {
            "symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": "5",
            "account_number": account,
        }  # fmt: skip
        data: dict[str, Any] = session.tool("place_equity_order", order)["data"]
    finally:
        session.close()
    assert data["status"] == "pending_approval", data
    return data

"""A gateway in sealed custody in front of a sandbox venue, both on real loopback sockets,
sharing one stepped clock; and a person's browser that walks both consent pages."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pyotp
import pytest
from mcp_http_testkit import McpSession, agentic_account
from oauth_testkit import challenge_of, new_verifier, parse_form, person_enrolment
from option_market_testkit import OPTION_TRADER
from owner_command_testkit import owner_command
from owner_testkit import PASSPHRASE, OwnerCodes, apply_policy, enrol
from sqlalchemy import Engine, select
from typer.testing import Result

from ordergate._serving import bind_socket
from ordergate.callers import CallerKey
from ordergate.core import Secret, SteppedClock
from ordergate.gateway import _serve
from ordergate.gateway._config import Custody, GatewayConfig, RateLimits
from ordergate.gateway._owner import connection_digest
from ordergate.gateway._schema import connections
from ordergate.gateway._serve import GatewayServer
from ordergate.gateway.custody import SealedBackend
from ordergate.gateway.keys import KeyProvider
from ordergate.ledger import FilingStatus, Ledger
from ordergate.runtime import Settings
from ordergate.sandbox import Sandbox, SandboxConfig, SandboxServer

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
MASTER = "m" * 40
REDIRECT = "http://127.0.0.1:33418/callback"
POLICY = """
approval = "never"
[symbols]
allow = ["SPY"]
"""
BOUND_S = 30
LIVE = 'mode = "live"\nreal_money = true\napproval = "never"\n[symbols]\nallow = ["SPY"]\n'
"""A live rail's policy (over the sandbox: no real account)."""


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


@dataclass
class Custodian:
    """The gateway (``url``), its venue, the shared clock, the ledger's engine and the
    gateway's home (its owner channel is there)."""

    url: str
    venue: Sandbox
    clock: SteppedClock
    engine: Engine
    home: Path
    codes: OwnerCodes | None = None
    server: GatewayServer | None = field(default=None, repr=False)
    backends: list[SealedBackend] = field(default_factory=list, repr=False)
    """The gateway's sealed backend, once it started (its reconciliation pass)."""
    minted: list[str] = field(default_factory=list, repr=False)
    secrets: list[str] = field(default_factory=list, repr=False)
    connection_ids: list[str] = field(default_factory=list, repr=False)
    """One per connection, in the order connected (beside ``secrets``)."""

    def settle(self) -> None:
        """The venue's clock run 2 s and one reconciliation pass of the gateway over every
        open filing: a paper market order placed ``submitted`` (confirmed after the venue's
        1 s, filled at the engine's first look after that) is then booked ``filled``."""
        assert self.server is not None and self.backends, "the rail is serving"
        self.clock.advance(timedelta(seconds=2))
        (backend,) = self.backends
        self.server.run_in_loop(backend.reconcile(), BOUND_S)

    def status(self, filing_id: object) -> FilingStatus:
        """The filing's status on the rail's ledger."""
        return Ledger(self.engine, clock=self.clock).filing(str(filing_id)).status

    def settled(self, filing_id: object) -> FilingStatus:
        """The filing's status after ``settle``."""
        self.settle()
        return self.status(filing_id)

    def browser(self) -> httpx2.Client:
        """A fresh browser: its own cookie jar, following nothing by itself."""
        return httpx2.Client(timeout=BOUND_S)

    def register(self) -> str:
        with httpx2.Client(timeout=BOUND_S) as http:
            response = http.post(
                self.url + "/oauth/register",
                json={"redirect_uris": [REDIRECT], "client_name": "Custody Test"},
            )
        assert response.status_code == 201, response.text
        client_id: str = response.json()["client_id"]
        return client_id

    def approve(
        self, browser: httpx2.Client, client_id: str, challenge: str, profile: str = "trader"
    ) -> httpx2.Response:
        """The gateway's consent page, approved: its answer (a 302 to the upstream)."""
        page = browser.get(
            self.url + "/oauth/authorize",
            params={
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "state": "client-state",
                "resource": self.url + "/mcp",
            },
        )
        assert page.status_code == 200, page.text
        form = parse_form(page.text).hidden
        # The passphrase: custody flows approve more often than two codes a half minute allow.
        code = {"owner_code": self.codes.passphrase or ""} if self.codes is not None else {}
        return browser.post(
            self.url + "/oauth/consent",
            data={**form, "profile": profile, "decision": "approve", **code},
        )

    def sign_in_upstream(
        self, browser: httpx2.Client, upstream_url: str, user: str | None = None
    ) -> str:
        """The venue's own sign-in page, approved (as the venue's named ``user``, with their
        name and password, where it has named users): the callback URL it sends the browser
        to."""
        page = browser.get(upstream_url)
        assert page.status_code == 200, page.text
        form = parse_form(page.text)
        (tag,) = form.forms
        answer = browser.post(
            page.url.join(tag["action"] or ""),
            data={**form.hidden, "decision": "approve", **self.venue_credentials(user)},
        )
        assert answer.status_code == 302, answer.text
        location: str = answer.headers["location"]
        return location

    def venue_credentials(self, user: str | None) -> dict[str, str]:
        """What the venue's sign-in page is given for its named ``user`` (``None``: nothing,
        the venue's one unnamed user)."""
        if user is None:
            return {}
        password = self.venue.user(user).password
        assert password is not None
        return {"username": user, "password": password.reveal()}

    def connect(
        self,
        browser: httpx2.Client | None = None,
        *,
        profile: str = "trader",
        passkey: Any = None,
        approval_mode: bool = False,
        user: str | None = None,
    ) -> str:
        """The whole flow in one browser (consent under ``profile``; ``passkey``: a
        ``SoftPasskey`` registered for the connection on the way; ``user``: the venue's named
        user who signs in upstream); the gateway access token it ends with. A connection starts
        in approval mode; unless ``approval_mode``, its person then turns it off with their code
        (a person trading freely under the rail's policy)."""
        before = {row["id"] for row in self.rows()}
        verifier = new_verifier()
        client_id = self.register()
        with browser or self.browser() as person:
            to_upstream = self.approve(person, client_id, challenge_of(verifier), profile)
            assert to_upstream.status_code == 302, to_upstream.text
            callback = self.sign_in_upstream(person, to_upstream.headers["location"], user)
            back = self.enrol(person, person.get(callback), passkey)
        assert back.status_code == 302, back.text
        params = query(back.headers["location"])
        assert params["state"] == "client-state"
        with httpx2.Client(timeout=BOUND_S) as http:
            tokens = http.post(
                self.url + "/oauth/token",
                data={
                    "grant_type": "authorization_code",
                    "code": params["code"],
                    "redirect_uri": REDIRECT,
                    "client_id": client_id,
                    "code_verifier": verifier,
                    "resource": self.url + "/mcp",
                },
            )
        assert tokens.status_code == 200, tokens.text
        body = tokens.json()
        self.minted += [params["code"], body["access_token"], body["refresh_token"]]
        [connection_id] = [row["id"] for row in self.rows() if row["id"] not in before]
        self.connection_ids.append(connection_id)
        if not approval_mode:
            turned = self.set_approval_mode(len(self.connection_ids) - 1, on=False)
            assert turned.status_code == 200, turned.text
        access: str = body["access_token"]
        return access

    def person_post(
        self, path: str, person: int, body: dict[str, Any], *, code: str | None = None
    ) -> httpx2.Response:
        """The ``person``-th connected person's request to their route ``path``: ``body``
        with their connection's digest and their current code (or ``code``)."""
        with httpx2.Client(timeout=BOUND_S) as http:
            return http.post(
                self.url + path,
                json={
                    "connection": connection_digest(self.connection_ids[person]),
                    "person_code": self.person_code(self.secrets[person]) if code is None else code,
                    **body,
                },
            )

    def push_key(self) -> str:
        """The rail's VAPID public key, as a console reads it to subscribe."""
        with httpx2.Client(timeout=BOUND_S) as http:
            answer = http.get(self.url + "/person/push/key")
        assert answer.status_code == 200, answer.text
        key: str = answer.json()["public_key"]
        return key

    def set_approval_mode(
        self, person: int, *, on: bool, code: str | None = None
    ) -> httpx2.Response:
        """The ``person``-th connected person turns approval mode ``on`` or off."""
        return self.person_post("/person/approval-mode", person, {"approval_mode": on}, code=code)

    def place(self, token: str, order: dict[str, Any]) -> dict[str, Any]:
        """``order`` placed through ``/mcp`` with ``token`` on its agentic account: the
        answer's data."""
        session = McpSession(self.url, token)
        try:
            account = agentic_account(session)
            data: dict[str, Any] = session.tool(
                "place_equity_order", {**order, "account_number": account}
            )["data"]
        finally:
            session.close()
        return data

    def enrol(
        self, browser: httpx2.Client, page: httpx2.Response, passkey: Any = None
    ) -> httpx2.Response:
        """The person's own code enrolled on the page the callback shows, confirmed with a
        first code: the callback's answer then (a 302 to the client). The secret is kept
        (``secrets``: one per connection, in the order connected). With ``passkey`` (a
        ``SoftPasskey``), it is registered for the connection first, as the page's script
        does."""
        assert page.status_code == 200, page.text
        self.clock.advance(timedelta(seconds=30))
        form, secret = person_enrolment(page.text, self.clock.now())
        self.secrets.append(secret)
        if passkey is not None:
            callback = self.url + "/oauth/callback"
            begun = browser.post(callback, json={"step": "options", **_only(form, "enrolment")})
            assert begun.status_code == 200, begun.text
            made = passkey.create(begun.json()["options"])
            body = {"step": "register", "ceremony": begun.json()["ceremony"], "credential": made}
            kept = browser.post(callback, json=body)
            assert kept.status_code == 200, kept.text
        return browser.post(self.url + "/oauth/callback", data=form)

    def person_code(self, secret: str) -> str:
        """The person's current code, a step later than any used before (the clock is stepped
        one step forward first: a code is spent once)."""
        self.clock.advance(timedelta(seconds=30))
        return pyotp.TOTP(secret).at(self.clock.now())

    def command(self, *args: str, code: str | None = None) -> Result:
        """``ordergate ARGS --owner-socket PATH`` as the operator (or the person) types it;
        ``code``, when given, on standard input (``--code-stdin``)."""
        return owner_command(self.home, *args, code=code)

    def rows(self) -> list[dict[str, Any]]:
        with self.engine.connect() as db:
            return [dict(row._mapping) for row in db.execute(select(connections))]


def _only(form: dict[str, str], name: str) -> dict[str, str]:
    return {name: form[name]}


@contextmanager
def custodian(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    master: str | None = MASTER,
    access_ttl: timedelta = timedelta(days=9),
    db_url: str | None = None,
    policy: str = POLICY,
    key_provider: KeyProvider | None = None,
    profiles: Mapping[str, str] | None = None,
    localhost: bool = False,
    push: bool = False,
    public_record: bool = False,
    venue_users: tuple[str, ...] = (),
    webhook_url: str | None = None,
) -> Iterator[Custodian]:
    """``profiles``: each profile file's text by the profile's name, in the gateway's home;
    ``venue_users``: the sandbox venue's named users, each with their own accounts (none: its
    one unnamed user, whose account every connection then trades);
    ``localhost``: the gateway's public URL is ``http://localhost:PORT`` (a browser's
    passkeys need a relying party that is a name, the whole consent flow at it);
    ``public_record``: the gateway serves ``/record`` too; ``webhook_url``: the operator's
    approval webhook (``ORDERGATE_APPROVAL_WEBHOOK``)."""
    home = tmp_path / "home"
    home.mkdir()
    for name, profile in (profiles or {}).items():
        (home / "profiles").mkdir(exist_ok=True)
        (home / "profiles" / f"{name}.yaml").write_text(profile)
    (home / "policy.toml").write_text(policy)
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    for name in (
        "ORDERGATE_DB_URL",
        "ORDERGATE_UPSTREAM_URL",
        "ORDERGATE_APPROVAL_WEBHOOK",
        "ORDERGATE_SANDBOX_START",
    ):
        monkeypatch.delenv(name, raising=False)
    if webhook_url is not None:
        monkeypatch.setenv("ORDERGATE_APPROVAL_WEBHOOK", webhook_url)
    clock = SteppedClock(start=OPEN)
    backends: list[SealedBackend] = []

    class KeptBackend(SealedBackend):
        """The gateway's backend, kept for ``Custodian.settle`` (its reconciliation pass)."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            backends.append(self)

    monkeypatch.setattr(_serve, "SealedBackend", KeptBackend)
    venue_server = SandboxServer(
        SandboxConfig(
            host="127.0.0.1", port=0, seed=7, access_token_ttl=access_ttl, users=venue_users
        ),
        clock=clock,
    )
    venue = venue_server.start()
    try:
        settings = Settings.resolve(upstream=venue.mcp_url, db=db_url)
        apply_policy(db_url or f"sqlite:///{home / 'ledger.db'}", policy)
        codes = enrol(home, passphrase=PASSPHRASE)
        many = 1_000_000
        sock = bind_socket("127.0.0.1", 0)
        config = GatewayConfig(
            port=0,
            custody=Custody.SEALED,
            master_secret=Secret(master) if master is not None else None,
            key_provider=key_provider,
            limits=RateLimits(register=many, authorize=many, token=many, mcp=many, burst=many),
            caller_key=CallerKey.derive(Secret(master)) if master is not None else None,
            public_url=f"http://localhost:{sock.getsockname()[1]}" if localhost else "",
            # Web Push to the persons' phones, through a push service on loopback.
            push_contact="mailto:rail@example.com" if push else None,
            push_allow_private=push,
            public_record=public_record,
        )
        server = GatewayServer(settings, config, sock, clock=clock)
        with server as url:
            engine = server.auth.store.engine if server.auth is not None else None
            assert engine is not None
            yield Custodian(
                url=url,
                venue=venue,
                clock=clock,
                engine=engine,
                home=home,
                codes=codes,
                server=server,
                backends=backends,
            )
    finally:
        venue_server.stop()


@contextmanager
def live_rail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, policy: str = LIVE
) -> Iterator[Custodian]:
    """A hosted rail in live mode over the sandbox (``policy``) whose profiles include
    ``optiontrader``, which may trade options."""
    profiles = {"optiontrader": OPTION_TRADER}
    with custodian(tmp_path, monkeypatch, policy=policy, profiles=profiles) as served:
        yield served

"""The authorization endpoint and the consent page: what the owner sees and decides."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from gateway_oauth_kit import REDIRECT, Gateway, location_params, serve
from oauth_testkit import parse_form
from owner_testkit import PASSPHRASE, OwnerCodes, enrol

from ordergate.owner import MAX_FAILURES
from ordergate.policy import PolicyConfig
from ordergate.profiles import load_profiles


@pytest.fixture
def codes(tmp_path: Path) -> OwnerCodes:
    return enrol(tmp_path / "home", passphrase=PASSPHRASE)


@pytest.fixture
def guarded(tmp_path: Path, codes: OwnerCodes) -> Iterator[Gateway]:
    with serve(tmp_path, owner=codes, profiles=load_profiles(None, PolicyConfig())) as served:
        yield served


@pytest.fixture
def unenrolled(tmp_path: Path) -> Iterator[Gateway]:
    with serve(tmp_path, owner=False, profiles=load_profiles(None, PolicyConfig())) as served:
        yield served


def test_the_consent_page_says_what_the_gateway_does_holds_and_never_does(
    gateway: Gateway,
) -> None:
    flow = gateway.flow(gateway.register(name='<img src=x onerror="alert(1)"> & Co'))
    page = flow.page()
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    text = page.text
    for words in (
        "files every order",
        "places it only as filed",
        "pass through unchanged",
        "upstream brokerage session, on this machine",
        "ledger of every filing",
        "never moves money",
        "never places options or crypto orders",
        "never shows a token",
    ):
        assert words in text
    # The client is named, escaped, with the host its answer goes back to.
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; Co" in text
    assert "<img" not in text
    assert '<code id="redirect-host">127.0.0.1:33418</code>' in text
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["cache-control"] == "no-store"
    form = parse_form(text)
    assert form.forms == [{"method": "post", "action": "/oauth/consent"}]
    assert form.buttons == [("decision", "approve"), ("decision", "deny")]
    assert set(form.hidden) == {"pending", "nonce"}
    assert 'name="passphrase"' not in text


class _TextById(HTMLParser):
    """The text of every element that has an id, and the ids of the elements around each."""

    def __init__(self) -> None:
        super().__init__()
        self.text: dict[str, str] = {}
        self.within: dict[str, list[str]] = {}
        self._open: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("input", "meta", "br"):
            return
        element_id = dict(attrs).get("id")
        if element_id is not None:
            self.text[element_id] = ""
            self.within[element_id] = [i for i in self._open if i is not None]
        self._open.append(element_id)

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("input", "meta", "br") and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for element_id in self._open:
            if element_id is not None:
                self.text[element_id] += data


@pytest.mark.req("gateway.consent.robinhood-facts")
def test_the_consent_page_states_what_robinhood_does_and_does_not(gateway: Gateway) -> None:
    page = _TextById()
    page.feed(gateway.flow().page().text)
    statements = {
        "custodian": ("Robinhood is the custodian", "never holds a dollar"),
        "revocable-token": ("trading token", "revocable", "Robinhood app"),
        "no-read-only-scope": ("no read-only", "monitor", "the gateway's promise"),
        "trade-approval": ("trade-approval setting", "off by default", "MCP", "Robinhood app"),
    }
    for element_id, words in statements.items():
        assert element_id in page.text, element_id
        assert page.within[element_id] == ["robinhood"]
        for word in words:
            assert word in page.text[element_id], (element_id, word)


def test_the_nonce_is_held_by_the_server_only_as_its_sha256(gateway: Gateway) -> None:
    flow = gateway.flow()
    form = flow.form()
    (pending,) = gateway.rows()["gateway_pending"]
    assert pending["id"] == form["pending"]
    assert pending["nonce_sha256"] == hashlib.sha256(form["nonce"].encode()).hexdigest()
    assert form["nonce"] not in str(pending)
    assert pending["nonce_used"] is False
    assert (pending["client_id"], pending["redirect_uri"]) == (flow.client_id, REDIRECT)
    assert (pending["state"], pending["resource"]) == ("state-123", gateway.resource)
    assert pending["upstream_state_sha256"] is None and pending["bind_sha256"] is None


def test_an_unnamed_client_is_called_so(gateway: Gateway) -> None:
    response = gateway.http.post("/oauth/register", json={"redirect_uris": [REDIRECT]})
    page = gateway.flow(response.json()["client_id"]).page()
    assert "An application that gave no name" in page.text


def test_approval_opens_an_owner_connection_and_redirects_with_a_code_and_the_state(
    gateway: Gateway,
) -> None:
    flow = gateway.flow()
    response = flow.decide(flow.form())
    assert response.headers["location"].startswith(REDIRECT + "?")
    params = location_params(response)
    assert set(params) == {"code", "state", "iss"}
    assert params["state"] == "state-123" and params["iss"] == gateway.url
    (connection,) = gateway.rows()["connections"]
    assert connection["client_id"] == flow.client_id
    assert (connection["kind"], connection["profile"], connection["state"]) == (
        "owner",
        "monitor",
        "live",
    )
    assert connection["upstream_sealed"] is None
    (code,) = gateway.rows()["gateway_codes"]
    assert code["code_sha256"] == hashlib.sha256(params["code"].encode()).hexdigest()
    assert code["connection_id"] == connection["id"]
    assert code["expires_at"] == "2026-12-01T15:05:00.000000Z"


def test_denial_redirects_with_access_denied_and_opens_nothing(gateway: Gateway) -> None:
    flow = gateway.flow()
    params = location_params(flow.decide(flow.form(), decision="deny"))
    assert params["error"] == "access_denied"
    assert params["state"] == "state-123"
    assert "code" not in params
    assert gateway.rows()["connections"] == []


def test_a_request_without_state_is_answered_without_one(gateway: Gateway) -> None:
    flow = gateway.flow()
    params = location_params(flow.decide(flow.form(state=None)))
    assert "state" not in params and "code" in params


def test_on_loopback_only_the_port_may_differ_from_the_registration(gateway: Gateway) -> None:
    flow = gateway.flow()
    elsewhere = "http://127.0.0.1:50123/callback"
    response = flow.decide(flow.form(redirect_uri=elsewhere))
    assert response.headers["location"].startswith(elsewhere + "?")
    code = location_params(response)["code"]
    # The code is bound to the redirect URI the request named.
    assert flow.exchange(code, redirect_uri=elsewhere).status_code == 200


@pytest.mark.parametrize(
    ("registered", "requested"),
    [
        ("http://localhost/cb", "http://localhost:5555/cb"),
        ("http://[::1]:1234/cb?app=1", "http://[::1]:999/cb?app=1"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1/"),
    ],
)
def test_a_loopback_port_is_free_whether_or_not_one_was_registered(
    gateway: Gateway, registered: str, requested: str
) -> None:
    flow = gateway.flow(gateway.register(registered))
    assert flow.page(redirect_uri=requested).status_code == 200


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        # RFC 6749 §4.1.2.1: a required parameter missing is invalid_request.
        ({"response_type": None}, "invalid_request"),
        # Narrowed when it names the gateway's scope too; naming none of it is refused.
        ({"scope": "admin"}, "invalid_scope"),
        ({"code_challenge": "short"}, "invalid_request"),
    ],
)
def test_other_bad_requests_go_back_to_the_trusted_redirect_uri_with_the_error(
    gateway: Gateway, overrides: dict[str, str | None], error: str
) -> None:
    response = gateway.flow().page(**overrides)
    assert response.headers["location"].startswith(REDIRECT + "?")
    params = location_params(response)
    assert params["error"] == error and params["state"] == "state-123"
    assert gateway.rows()["gateway_pending"] == []


def test_a_parameter_given_twice_is_refused(gateway: Gateway) -> None:
    flow = gateway.flow()
    params = list(flow.params().items())
    doubled_state = gateway.http.get("/oauth/authorize", params=[*params, ("state", "x")])
    assert location_params(doubled_state)["error"] == "invalid_request"
    doubled_scope = gateway.http.get("/oauth/authorize", params=[*params, ("scope", "gateway")])
    assert location_params(doubled_scope)["error"] == "invalid_request"
    doubled_client = gateway.http.get(
        "/oauth/authorize", params=[*params, ("client_id", flow.client_id)]
    )
    assert doubled_client.status_code == 400 and "location" not in doubled_client.headers


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"client_id": None}, "client_id is missing"),
        ({"client_id": "not-registered"}, "client_id is not a client registered here"),
        ({"redirect_uri": None}, "redirect_uri is missing"),
    ],
)
def test_errors_before_the_redirect_uri_is_trusted_are_an_html_400(
    gateway: Gateway, overrides: dict[str, str | None], problem: str
) -> None:
    response = gateway.flow().page(**overrides)
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")
    assert "location" not in response.headers
    assert problem in response.text


def test_the_consent_page_expires(gateway: Gateway) -> None:
    flow = gateway.flow()
    form = flow.form()
    gateway.clock.advance(timedelta(minutes=10))
    response = flow.decide(form)
    assert response.status_code == 400
    assert "expired or was already used" in response.text


def test_consent_continues_only_by_a_post_with_a_decision(gateway: Gateway) -> None:
    flow = gateway.flow()
    form = flow.form()
    assert gateway.http.get("/oauth/consent", params=form).status_code == 405
    undecided = gateway.http.post("/oauth/consent", data=form)
    assert undecided.status_code == 400 and "approve or deny" in undecided.text
    # Neither spent the nonce.
    assert "code" in location_params(flow.decide(form))


def test_a_form_that_is_not_a_form_is_an_html_400(gateway: Gateway) -> None:
    response = gateway.http.post(
        "/oauth/consent",
        files={"pending": ("p.txt", b"x")},
        data={"decision": "approve"},
    )
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")


@pytest.mark.req("owner.act.consent")
def test_with_an_owner_enrolled_the_page_asks_for_the_owner_code_and_a_current_one_approves(
    guarded: Gateway, codes: OwnerCodes
) -> None:
    flow = guarded.flow()
    page = flow.page()
    assert 'type="password" name="owner_code"' in page.text
    assert 'value="deny" formnovalidate>' in page.text
    form = parse_form(page.text).hidden
    response = flow.decide({**form, "profile": "trader", "owner_code": codes.next()})
    assert "code" in location_params(response)
    [connection] = guarded.rows()["connections"]
    assert connection["profile"] == "trader"


@pytest.mark.req("owner.act.consent")
@pytest.mark.parametrize("kind", ["missing", "empty", "wrong", "replayed", "near passphrase"])
@pytest.mark.req("owner.threat.self-consent")
def test_a_wrong_missing_or_replayed_code_approves_nothing_and_spends_the_page(
    guarded: Gateway, codes: OwnerCodes, kind: str
) -> None:
    if kind == "replayed":
        first = guarded.flow()
        assert "code" in location_params(first.decide({**first.form(), "owner_code": codes.next()}))
    flow = guarded.flow()
    form = flow.form()
    given = {
        "missing": None,
        "empty": "",
        "wrong": codes.wrong(),
        "replayed": codes.used_already() if kind == "replayed" else None,
        "near passphrase": PASSPHRASE + " ",
    }[kind]
    attempt = form if given is None else {**form, "owner_code": given}
    refused = flow.decide(attempt)
    assert refused.status_code in (401, 403)
    assert "location" not in refused.headers
    assert len(guarded.rows()["connections"]) == (1 if kind == "replayed" else 0)
    again = flow.decide({**form, "owner_code": PASSPHRASE})
    assert again.status_code == 400


@pytest.mark.req("owner.consent.retype")
def test_a_mistyped_owner_code_shows_the_page_again_to_retype_and_each_attempt_counts(
    guarded: Gateway, codes: OwnerCodes
) -> None:
    flow = guarded.flow()
    form = flow.form()
    refused = flow.decide({**form, "profile": "trader", "owner_code": codes.wrong()})
    assert refused.status_code == 403
    assert 'name="owner_code"' in refused.text and "not right" in refused.text
    retyped = parse_form(refused.text).hidden
    assert retyped["pending"] != form["pending"] and retyped["nonce"] != form["nonce"]
    guarded.minted.append(retyped["nonce"])
    response = flow.decide({**retyped, "profile": "trader", "owner_code": codes.next()})
    assert "code" in location_params(response)
    [connection] = guarded.rows()["connections"]
    assert connection["profile"] == "trader"
    # Each attempt counted: wrong codes up to the lockout end the request there.
    flow = guarded.flow()
    hidden = flow.form()
    answers = []
    for _ in range(MAX_FAILURES):
        answer = flow.decide({**hidden, "owner_code": codes.wrong()})
        answers.append(answer.status_code)
        if answer.status_code == 423:
            break
        hidden = parse_form(answer.text).hidden
    assert answers[-1] == 423
    assert 'name="owner_code"' not in answer.text
    assert len(answers) <= MAX_FAILURES


def test_denial_needs_no_owner_code(guarded: Gateway) -> None:
    flow = guarded.flow()
    assert location_params(flow.decide(flow.form(), "deny"))["error"] == "access_denied"


@pytest.mark.req("owner.consent.monitor-only-unenrolled")
@pytest.mark.req("owner.threat.self-consent")
def test_with_nobody_enrolled_the_page_says_how_to_enrol_and_grants_monitor_only(
    unenrolled: Gateway,
) -> None:
    flow = unenrolled.flow()
    page = flow.page()
    assert "ordergate owner init" in page.text and 'name="owner_code"' not in page.text
    trader = flow.decide({**flow.form(), "profile": "trader"})
    assert trader.status_code == 403 and "only the monitor profile" in trader.text
    assert unenrolled.rows()["connections"] == []
    monitor = flow.decide({**flow.form(), "profile": "monitor"})
    assert "code" in location_params(monitor)
    [connection] = unenrolled.rows()["connections"]
    assert connection["profile"] == "monitor"


@pytest.fixture
def offering(tmp_path: Path) -> Iterator[Gateway]:
    with serve(tmp_path, profiles=load_profiles(None, PolicyConfig())) as served:
        yield served


def test_the_consent_page_offers_every_profile_with_monitor_first_and_chosen(
    offering: Gateway,
) -> None:
    page = offering.flow().page()
    assert page.status_code == 200
    options = re.findall(r'<option value="([a-z]+)"( selected)?>', page.text)
    assert options == [("monitor", " selected"), ("researcher", ""), ("trader", "")]


def test_the_profile_chosen_on_the_consent_page_is_the_connections(offering: Gateway) -> None:
    flow = offering.flow()
    approved = offering.http.post(
        "/oauth/consent", data={**flow.form(), "profile": "trader", "decision": "approve"}
    )
    assert approved.status_code == 302
    (connection,) = offering.rows()["connections"]
    assert connection["profile"] == "trader"


def test_a_profile_the_gateway_does_not_define_is_refused_and_connects_nothing(
    offering: Gateway,
) -> None:
    flow = offering.flow()
    refused = offering.http.post(
        "/oauth/consent", data={**flow.form(), "profile": "root", "decision": "approve"}
    )
    assert refused.status_code == 400
    assert "profile is not one this gateway defines" in refused.text
    assert offering.rows()["connections"] == []


@pytest.mark.req("owner.record.readable")
def test_an_abandoned_consent_is_not_listed_as_a_connection(gateway: Gateway) -> None:
    from ordergate.gateway.desk._connections import list_connections

    abandoned = gateway.flow()
    abandoned.code()  # approved, but the client never came back for its tokens
    assert list_connections(gateway.engine) == []
    kept = gateway.flow()
    assert kept.exchange(kept.code()).status_code == 200
    (listed,) = list_connections(gateway.engine)
    assert listed["state"] == "live"


@pytest.mark.req("owner.record.readable")
def test_an_abandoned_consent_is_erased_by_the_sweep_once_its_code_has_expired(
    gateway: Gateway,
) -> None:
    from datetime import timedelta

    store = gateway.auth.store
    abandoned = gateway.flow()
    abandoned.code()  # approved, but the client never came back for its tokens
    slow = gateway.flow()
    slow_code = slow.code()
    kept = gateway.flow()
    assert kept.exchange(kept.code()).status_code == 200
    assert store.erase_idle() == 0  # every code still valid: a slow client may yet come back
    assert slow.exchange(slow_code).status_code == 200
    gateway.clock.advance(timedelta(hours=1))
    assert store.erase_idle() == 1
    states = sorted(row["state"] for row in gateway.rows()["connections"])
    assert states == ["erased", "live", "live"]
    codes = gateway.rows()["gateway_codes"]
    assert len(codes) == 2 and all(row["used_at"] is not None for row in codes)

"""A connection's life: used, idle, dead, revoked, erased."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gateway_oauth_kit import Gateway

from ordergate.gateway.oauth import Grant


def _connected(gateway: Gateway) -> tuple[dict[str, str], Grant]:
    tokens = gateway.flow().tokens()
    grant = gateway.auth.verifier.verify(tokens["access_token"])
    assert grant is not None
    return tokens, grant


def test_revoking_an_access_token_revokes_the_connections_tokens_but_keeps_it(
    gateway: Gateway,
) -> None:
    flow = gateway.flow()
    tokens = flow.tokens()
    grant = gateway.auth.verifier.verify(tokens["access_token"])
    assert grant is not None
    response = flow.revoke(tokens["access_token"])
    assert response.status_code == 200 and response.content == b""
    assert response.headers["cache-control"] == "no-store"
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None
    assert flow.refresh(tokens["refresh_token"]).json()["error"] == "invalid_grant"
    connection = gateway.auth.store.connection(grant.connection_id)
    assert connection is not None and connection.state == "live"


def test_revoking_a_refresh_token_erases_the_connection(gateway: Gateway) -> None:
    flow = gateway.flow()
    tokens = flow.tokens()
    grant = gateway.auth.verifier.verify(tokens["access_token"])
    assert grant is not None
    assert flow.revoke(tokens["refresh_token"]).status_code == 200
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None
    connection = gateway.auth.store.connection(grant.connection_id)
    assert connection is not None and connection.state == "erased"
    assert gateway.rows()["gateway_tokens"] == []


def test_revocation_leaves_another_clients_tokens_and_says_nothing(gateway: Gateway) -> None:
    flow = gateway.flow()
    other = gateway.flow()
    tokens = flow.tokens()
    for token in (tokens["access_token"], tokens["refresh_token"], "unknown", "u" * 600):
        response = other.revoke(token)
        assert response.status_code == 200 and response.content == b""
    assert gateway.auth.verifier.verify(tokens["access_token"]) is not None
    assert flow.refresh(tokens["refresh_token"]).status_code == 200


@pytest.mark.parametrize(
    "content", [b"client_id=c", b"token=t", b"token=a&token=b&client_id=c", b"token=t&client_id="]
)
def test_a_revocation_without_one_token_and_a_client_id_is_invalid(
    gateway: Gateway, content: bytes
) -> None:
    response = gateway.http.post(
        "/oauth/revoke",
        content=content,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_touch_keeps_a_connection_from_idling_and_erase_idle_erases_the_rest(
    gateway: Gateway,
) -> None:
    store = gateway.auth.store
    _, used = _connected(gateway)
    _, idle = _connected(gateway)
    _, dead = _connected(gateway)
    assert store.mark_dead(dead.connection_id)
    gateway.flow().form()  # a consent page left open
    gateway.clock.advance(timedelta(days=29))
    store.touch(used.connection_id)
    store.touch(dead.connection_id)  # a dead connection is not brought back by use
    connection = store.connection(used.connection_id)
    assert connection is not None
    assert connection.last_used_at == gateway.clock.now()
    assert connection.created_at < connection.last_used_at
    gateway.clock.advance(timedelta(days=1))

    assert store.erase_idle() == 2
    states = {
        key: getattr(store.connection(grant.connection_id), "state", None)
        for key, grant in (("used", used), ("idle", idle), ("dead", dead))
    }
    assert states == {"used": "live", "idle": "erased", "dead": "erased"}
    rows = gateway.rows()
    assert rows["gateway_pending"] == []
    # Every token had expired by now (the refresh tokens at exactly thirty days): swept.
    assert rows["gateway_tokens"] == []
    assert store.erase_idle() == 0


def test_erase_idle_takes_a_positive_age(gateway: Gateway) -> None:
    with pytest.raises(ValueError, match="positive"):
        gateway.auth.store.erase_idle(older_than=timedelta(0))
    assert gateway.auth.store.erase_idle(older_than=timedelta(days=1)) == 0


def test_a_dead_connection_refuses_its_tokens_and_stays_dead(gateway: Gateway) -> None:
    store = gateway.auth.store
    tokens, grant = _connected(gateway)
    assert store.mark_dead(grant.connection_id) is True
    assert store.mark_dead(grant.connection_id) is False
    assert gateway.mcp(tokens["access_token"]).status_code == 401
    connection = store.connection(grant.connection_id)
    assert connection is not None and connection.state == "dead"


def test_erase_removes_the_connections_tokens_and_codes_for_good(gateway: Gateway) -> None:
    store = gateway.auth.store
    tokens, grant = _connected(gateway)
    assert store.erase(grant.connection_id) is True
    assert store.erase(grant.connection_id) is False
    assert store.mark_dead(grant.connection_id) is False
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None
    rows = gateway.rows()
    assert rows["gateway_tokens"] == [] and rows["gateway_codes"] == []
    (row,) = rows["connections"]
    assert row["state"] == "erased" and row["upstream_sealed"] is None
    assert store.connection("no-such-connection") is None
    assert store.client("no-such-client") is None


def test_live_among_names_only_the_live_connections(gateway: Gateway) -> None:
    first = gateway.auth.verifier.verify(gateway.flow().tokens()["access_token"])
    second = gateway.auth.verifier.verify(gateway.flow().tokens()["access_token"])
    assert first is not None and second is not None
    assert gateway.auth.store.erase(second.connection_id)
    ids = [first.connection_id, second.connection_id, "never-was"]
    assert gateway.auth.store.live_among(ids) == {first.connection_id}


@pytest.mark.req("gateway.threat.anonymous-rows")
def test_clients_registered_and_never_authorised_are_forgotten_after_an_hour(
    gateway: Gateway,
) -> None:
    _, used = _connected(gateway)
    unused = [gateway.register(name=f"unused {n}") for n in range(3)]
    slow = gateway.register(name="slow")
    gateway.clock.advance(timedelta(minutes=55))
    gateway.flow(slow).form()  # its consent page, still open at the hour, keeps it
    gateway.clock.advance(timedelta(minutes=4))
    gateway.register(name="recent")
    ids = {row["client_id"] for row in gateway.rows()["gateway_clients"]}
    assert set(unused) <= ids  # not an hour old yet
    gateway.clock.advance(timedelta(minutes=2))
    recent = gateway.register(name="recent again")
    kept = {row["client_id"] for row in gateway.rows()["gateway_clients"]}
    assert not set(unused) & kept
    assert {used.client_id, slow, recent} <= kept
    gateway.clock.advance(timedelta(hours=2))
    assert gateway.auth.store.erase_idle() == 0
    kept = {row["client_id"] for row in gateway.rows()["gateway_clients"]}
    assert kept == {used.client_id}  # the authorised one stays

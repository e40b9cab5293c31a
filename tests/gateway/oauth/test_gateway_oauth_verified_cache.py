"""The verification cache: a token just verified is still refused at once when this process
ends its grant, and a write it cannot see is honoured for at most ``verified_ttl``."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from gateway_oauth_kit import Gateway

from ordergate.gateway.oauth import Grant
from ordergate.gateway.oauth._grants import DEFAULT_VERIFIED_TTL
from ordergate.gateway.oauth._values import sha256_hex


def _verified_twice(gateway: Gateway) -> tuple[dict[str, str], Grant]:
    tokens = gateway.flow().tokens()
    grant = gateway.auth.verifier.verify(tokens["access_token"])
    assert grant is not None
    assert gateway.auth.verifier.verify(tokens["access_token"]) == grant
    return tokens, grant


def _revoke_behind_sqlalchemys_back(gateway: Gateway, token: str) -> None:
    """What another process would do: a write this process's gateway never sees."""
    database = gateway.engine.url.database
    assert database is not None
    with sqlite3.connect(database) as db:
        db.execute(
            "UPDATE gateway_tokens SET revoked_at = '2000-01-01T00:00:00.000000Z' "
            "WHERE token_sha256 = ?",
            (sha256_hex(token),),
        )


def test_a_just_verified_token_revoked_at_the_revocation_endpoint_is_refused_at_once(
    gateway: Gateway,
) -> None:
    tokens, grant = _verified_twice(gateway)
    flow = gateway.flow(grant.client_id)
    assert flow.revoke(tokens["access_token"]).status_code == 200
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None
    assert gateway.mcp(tokens["access_token"]).status_code == 401


def test_a_just_verified_token_of_a_connection_marked_dead_is_refused_at_once(
    gateway: Gateway,
) -> None:
    tokens, grant = _verified_twice(gateway)
    assert gateway.auth.store.mark_dead(grant.connection_id)
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None


def test_a_just_verified_token_of_an_erased_connection_is_refused_at_once(
    gateway: Gateway,
) -> None:
    tokens, grant = _verified_twice(gateway)
    assert gateway.auth.store.erase(grant.connection_id)
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None


def test_a_just_verified_token_is_refused_at_once_after_its_refresh_token_rotates(
    gateway: Gateway,
) -> None:
    tokens, grant = _verified_twice(gateway)
    flow = gateway.flow(grant.client_id)
    fresh = flow.refresh(tokens["refresh_token"]).json()
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None
    assert gateway.auth.verifier.verify(fresh["access_token"]) is not None


def test_a_code_replay_ends_a_just_verified_token_at_once(gateway: Gateway) -> None:
    flow = gateway.flow()
    code = flow.code()
    tokens = flow.exchange(code).json()
    assert gateway.auth.verifier.verify(tokens["access_token"]) is not None
    assert flow.exchange(code).status_code == 400
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None


def test_idle_erasure_ends_a_just_verified_token_at_once(gateway: Gateway) -> None:
    tokens, _ = _verified_twice(gateway)
    gateway.clock.advance(timedelta(days=31))
    assert gateway.auth.store.erase_idle() == 1
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None


def test_a_cached_grant_is_refused_at_its_expiry_instant(gateway: Gateway) -> None:
    tokens, grant = _verified_twice(gateway)
    gateway.clock.set(grant.expires_at - timedelta(microseconds=1))
    assert gateway.auth.verifier.verify(tokens["access_token"]) == grant
    gateway.clock.set(grant.expires_at)
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None


def test_a_revocation_by_another_process_is_honoured_for_at_most_the_cache_ttl(
    gateway: Gateway,
) -> None:
    tokens, grant = _verified_twice(gateway)
    _revoke_behind_sqlalchemys_back(gateway, tokens["access_token"])
    assert gateway.auth.verifier.verify(tokens["access_token"]) == grant  # not yet seen here
    gateway.clock.advance(DEFAULT_VERIFIED_TTL)
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None


def test_recording_a_connections_use_keeps_its_grant_verified_without_a_read(
    gateway: Gateway,
) -> None:
    tokens, grant = _verified_twice(gateway)
    gateway.auth.store.touch(grant.connection_id)
    # Revoked where this process cannot see it: only a kept grant can still answer.
    _revoke_behind_sqlalchemys_back(gateway, tokens["access_token"])
    assert gateway.auth.verifier.verify(tokens["access_token"]) == grant


def test_forgetting_verified_grants_makes_the_next_verification_read_the_record(
    gateway: Gateway,
) -> None:
    tokens, _ = _verified_twice(gateway)
    _revoke_behind_sqlalchemys_back(gateway, tokens["access_token"])
    gateway.auth.store.grants.forget_verified()
    assert gateway.auth.verifier.verify(tokens["access_token"]) is None

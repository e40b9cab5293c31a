"""The gateway's one verifier (issue 12 §5): every bearer token becomes a typed
``Principal`` — connection, identity, profile, kind of credential — or nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest

from ordergate.callers import CallerKey, CallerVerifier, mint
from ordergate.core import Secret, SteppedClock
from ordergate.gateway._callers import bearer_verifier
from ordergate.gateway._minting import mint_owner_tokens
from ordergate.gateway._owner import connection_digest, identity_of
from ordergate.gateway.mcp import Credential, Principal, Verify
from ordergate.gateway.oauth import GatewayAuth, Grant
from ordergate.ledger import open_ledger

OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
URL = "http://127.0.0.1:8787"
KEY = CallerKey.derive(Secret("verifier-test-master-secret-" + "v" * 20))


@dataclass
class Pieces:
    auth: GatewayAuth
    clock: SteppedClock

    def verifier(self, *, sealed: bool = False, remember: int = 65536) -> Verify:
        return bearer_verifier(
            self.auth.verifier.verify,
            CallerVerifier(KEY, clock=self.clock),
            store=self.auth.store,
            identity=identity_of,
            needs_connection=sealed,
            remember=remember,
        )

    def caller(self, connection: str | None = None, profile: str = "trader") -> str:
        return mint(
            KEY, caller="nightly", profile=profile, ttl=timedelta(minutes=5), now=self.clock.now(),
            connection=connection,
        ).reveal()  # fmt: skip


@pytest.fixture
def pieces(tmp_path: Path) -> Iterator[Pieces]:
    clock = SteppedClock(start=OPEN)
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=clock) as ledger:
        yield Pieces(GatewayAuth(ledger.engine, public_url=URL, clock=clock), clock)


def _verify(verify: Verify, token: str) -> Principal | None:
    return anyio.run(verify, token)


def test_an_access_token_is_its_connections_principal_with_the_profile_it_was_given(
    pieces: Pieces,
) -> None:
    pair = mint_owner_tokens(
        pieces.auth.store, client_name="t", resource=URL + "/mcp", profile="researcher"
    )
    found = _verify(pieces.verifier(remember=1), pair.access_token)
    again = _verify(pieces.verifier(remember=1), pair.access_token)
    assert found is not None and found == again
    assert found.credential is Credential.OAUTH
    assert found.identity == identity_of(found.connection_id)
    assert found.profile == "researcher"
    assert found.session_owner == f"oauth|{found.connection_id}"


def test_several_connections_are_remembered_within_the_bound(pieces: Pieces) -> None:
    verify = pieces.verifier(remember=1)
    tokens = [
        mint_owner_tokens(pieces.auth.store, client_name=n, resource=URL + "/mcp").access_token
        for n in ("a", "b", "a")
    ]
    principals = [_verify(verify, token) for token in tokens]
    assert [p.profile for p in principals if p is not None] == ["trader"] * 3


def test_a_grant_whose_connection_is_gone_names_no_profile(pieces: Pieces) -> None:
    def grant(token: str) -> Grant:
        return Grant(connection_id="gone", client_id="c", scopes=("gateway",), expires_at=OPEN)

    verify = bearer_verifier(
        grant, None, store=pieces.auth.store, identity=identity_of, needs_connection=False
    )
    found = _verify(verify, "opaque-token")
    assert found is not None and found.profile is None


def test_an_unknown_token_and_a_caller_token_without_a_caller_key_are_nothing(
    pieces: Pieces,
) -> None:
    keyless = bearer_verifier(
        pieces.auth.verifier.verify, None, store=pieces.auth.store, identity=identity_of,
        needs_connection=False,
    )  # fmt: skip
    assert _verify(pieces.verifier(), "opaque-token") is None
    assert _verify(keyless, pieces.caller()) is None
    assert _verify(pieces.verifier(), pieces.caller()[:-2] + "AA") is None


@pytest.mark.req("gateway.bypass.caller-identity")
def test_a_caller_token_is_the_callers_principal_bound_or_on_the_owners_session(
    pieces: Pieces,
) -> None:
    pair = mint_owner_tokens(pieces.auth.store, client_name="t", resource=URL + "/mcp")
    grant = pieces.auth.verifier.verify(pair.access_token)
    assert grant is not None
    connection = grant.connection_id
    unbound = _verify(pieces.verifier(), pieces.caller(profile="monitor"))
    bound = _verify(pieces.verifier(sealed=True), pieces.caller(connection))
    assert unbound is not None
    assert unbound.connection_id == "caller:nightly"
    assert unbound.identity.startswith("caller:nightly/monitor#")
    assert (unbound.profile, unbound.credential) == ("monitor", Credential.CALLER)
    assert bound is not None
    assert bound.connection_id == connection
    assert bound.identity.startswith("caller:nightly/trader#")
    assert bound.identity.endswith("@" + connection_digest(connection))
    assert bound.session_owner == f"caller|{connection}|{bound.identity}"
    assert _verify(pieces.verifier(sealed=True), pieces.caller()) is None
    assert _verify(pieces.verifier(), pieces.caller("no-such-connection")) is None


def test_a_cached_grant_is_used_on_the_loop_and_a_miss_is_read_in_a_worker_thread(
    pieces: Pieces,
) -> None:
    pair = mint_owner_tokens(pieces.auth.store, client_name="t", resource=URL + "/mcp")
    verifier = pieces.auth.verifier
    reads: list[str] = []

    def read(token: str) -> Grant | None:
        reads.append(threading.current_thread().name)
        return verifier.verify(token)

    verify = bearer_verifier(
        read, None, store=pieces.auth.store, identity=identity_of, needs_connection=False,
        cached=verifier.cached,
    )  # fmt: skip
    assert verifier.cached(pair.access_token) is None  # never verified yet: a miss
    first = _verify(verify, pair.access_token)
    assert verifier.cached(pair.access_token) == verifier.verify(pair.access_token)
    again = _verify(verify, pair.access_token)
    assert first is not None and first == again
    assert len(reads) == 1 and reads[0] != threading.main_thread().name
    assert _verify(verify, "opaque-token") is None and len(reads) == 2  # refusals: read
    assert verifier.cached("") is None and verifier.cached("x" * 100_000) is None

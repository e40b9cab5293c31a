"""The grant store behind the endpoints: hashes only, families, sweeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ordergate.core import SteppedClock
from ordergate.oauth import BAD_CODE, Authorization, CodeExchange, IssuedTokens, Refusal
from ordergate.sandbox.oauth._grants import GrantStore

pytestmark = pytest.mark.anyio

# RFC 7636 Appendix B.
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
REQUEST = Authorization(
    client_id="client",
    redirect_uri="http://127.0.0.1/cb",
    code_challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    scope="internal",
    resource=None,
    state="s",
)


def _exchange(code: str, verifier: str = VERIFIER) -> CodeExchange:
    return CodeExchange(
        code=code, client_id="client", redirect_uri=REQUEST.redirect_uri, code_verifier=verifier
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=datetime(2026, 9, 21, tzinfo=UTC))


@pytest.fixture
def store(clock: SteppedClock) -> GrantStore:
    return GrantStore(
        clock=clock,
        client_id="client",
        access_token_ttl=timedelta(days=9),
        refresh_token_ttl=timedelta(days=90),
        code_ttl=timedelta(minutes=1),
        consent_ttl=timedelta(minutes=5),
    )


def _everything_held(store: GrantStore) -> str:
    """Every key and value the store holds, rendered, to search for plain secrets."""
    parts: list[str] = []
    for value in vars(store).values():
        if isinstance(value, dict):
            parts += [repr(key) + repr(item) for key, item in value.items()]
        else:
            parts.append(repr(value))
    return " ".join(parts)


async def test_the_store_holds_only_hashes_of_what_it_hands_out(store: GrantStore) -> None:
    ticket = await store.open_consent(REQUEST)
    code = await store.issue_code(REQUEST)
    pair = store.mint(client_id="client", scope="internal")
    exchanged = await store.exchange_code(_exchange(await store.issue_code(REQUEST)))
    assert isinstance(exchanged, IssuedTokens)
    held = _everything_held(store)
    secrets = (ticket.nonce, code, pair.access_token.reveal(), pair.refresh_token.reveal())
    for secret in (*secrets, exchanged.access_token, exchanged.refresh_token):
        assert secret not in held
        assert secret.encode() not in held.encode()
        assert secret not in repr(ticket) + repr(exchanged)


async def test_a_replayed_code_is_refused_and_revokes_the_tokens_its_exchange_issued(
    store: GrantStore,
) -> None:
    code = await store.issue_code(REQUEST)
    first = await store.exchange_code(_exchange(code))
    assert isinstance(first, IssuedTokens)
    assert store.verify_access_token(first.access_token) is not None
    assert await store.exchange_code(_exchange(code)) == BAD_CODE
    assert store.verify_access_token(first.access_token) is None
    refused = await store.rotate_refresh_token(first.refresh_token, client_id="client")
    assert isinstance(refused, Refusal)


async def test_a_consent_nonce_is_spent_by_taking_it(store: GrantStore) -> None:
    ticket = await store.open_consent(REQUEST)
    other = await store.open_consent(REQUEST)
    # A nonce of another page, or a forged one, spends nothing.
    assert await store.take_consent(ticket.pending_id, other.nonce) is None
    assert await store.take_consent(ticket.pending_id, "A" * 43) is None
    assert await store.take_consent(ticket.pending_id, ticket.nonce) == REQUEST
    assert await store.take_consent(ticket.pending_id, ticket.nonce) is None


async def test_expired_entries_are_swept_while_issuing(
    store: GrantStore, clock: SteppedClock
) -> None:
    for _ in range(600):
        store.mint(client_id="client", scope="internal")
        await store.open_consent(REQUEST)
    spent = await store.issue_code(REQUEST)
    assert isinstance(await store.exchange_code(_exchange(spent, "x" * 43)), Refusal)
    clock.advance(timedelta(days=91))
    survivor = store.mint(client_id="client", scope="internal")
    # The last sweep found ~1500 live entries, so the next waits for that many issues.
    for _ in range(2000):
        await store.open_consent(REQUEST)
    assert store.verify_access_token(survivor.access_token.reveal()) is not None
    assert len(store._access) == 1
    assert len(store._refresh) == 1
    assert len(store._codes) == 0
    assert len(store._consents) == 2000  # the 600 old ones are gone


async def test_a_redeemed_code_is_remembered_as_long_as_its_tokens_can_live(
    store: GrantStore, clock: SteppedClock
) -> None:
    code = await store.issue_code(REQUEST)
    pair = await store.exchange_code(_exchange(code))
    assert isinstance(pair, IssuedTokens)
    clock.advance(timedelta(days=89))
    for _ in range(1100):
        await store.open_consent(REQUEST)
    assert await store.exchange_code(_exchange(code)) == BAD_CODE
    refused = await store.rotate_refresh_token(pair.refresh_token, client_id="client")
    assert isinstance(refused, Refusal)


async def test_a_refresh_token_is_bound_to_its_client_and_another_clients_try_spends_nothing(
    store: GrantStore,
) -> None:
    pair = store.mint(client_id="client", scope="internal")
    refused = await store.rotate_refresh_token(pair.refresh_token.reveal(), client_id="other")
    assert isinstance(refused, Refusal) and refused.error == "invalid_grant"
    rotated = await store.rotate_refresh_token(pair.refresh_token.reveal(), client_id="client")
    assert isinstance(rotated, IssuedTokens) and rotated.scope == "internal"

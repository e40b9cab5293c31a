"""The grant store behind the endpoints: hashes only, families, sweeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ordergate.core import SteppedClock
from ordergate.sandbox.oauth._grants import AuthorizationRequest, GrantStore

REQUEST = AuthorizationRequest(
    client_id="client",
    redirect_uri="http://127.0.0.1/cb",
    code_challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    scope="internal",
    resource=None,
    state="s",
)


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=datetime(2026, 9, 21, tzinfo=UTC))


@pytest.fixture
def store(clock: SteppedClock) -> GrantStore:
    return GrantStore(
        clock=clock,
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


def test_the_store_holds_only_hashes_of_what_it_hands_out(store: GrantStore) -> None:
    nonce = store.open_consent(REQUEST).reveal()
    code = store.issue_code(REQUEST).reveal()
    pair = store.issue_tokens(family=store.new_family(), client_id="client", scope="internal")
    assert pair is not None
    held = _everything_held(store)
    for secret in (nonce, code, pair.access_token.reveal(), pair.refresh_token.reveal()):
        assert secret not in held
        assert secret.encode() not in held.encode()


def test_tokens_cannot_be_issued_into_a_family_revoked_by_a_replayed_code(
    store: GrantStore,
) -> None:
    code = store.issue_code(REQUEST).reveal()
    grant = store.redeem_code(code)
    assert grant is not None
    # A replay lands between the first redemption and its token issue.
    assert store.redeem_code(code) is None
    assert store.issue_tokens(family=grant.family, client_id="client", scope="internal") is None


def test_a_consent_nonce_is_spent_by_taking_it(store: GrantStore) -> None:
    nonce = store.open_consent(REQUEST).reveal()
    assert store.take_consent(nonce) == REQUEST
    assert store.take_consent(nonce) is None


def test_expired_entries_are_swept_while_issuing(store: GrantStore, clock: SteppedClock) -> None:
    for _ in range(600):
        store.issue_tokens(family=store.new_family(), client_id="client", scope="internal")
        store.open_consent(REQUEST)
    spent = store.issue_code(REQUEST).reveal()
    store.redeem_code(spent)
    clock.advance(timedelta(days=91))
    survivor = store.issue_tokens(family=store.new_family(), client_id="client", scope="internal")
    assert survivor is not None
    # The last sweep found ~1500 live entries, so the next waits for that many issues.
    for _ in range(2000):
        store.open_consent(REQUEST)
    assert store.verify_access_token(survivor.access_token.reveal()) is not None
    assert len(store._access) == 1
    assert len(store._refresh) == 1
    assert len(store._codes) == 0
    assert len(store._consents) == 2000  # the 600 old ones are gone


def test_a_redeemed_code_is_remembered_as_long_as_its_tokens_can_live(
    store: GrantStore, clock: SteppedClock
) -> None:
    code = store.issue_code(REQUEST).reveal()
    grant = store.redeem_code(code)
    assert grant is not None
    pair = store.issue_tokens(family=grant.family, client_id="client", scope="internal")
    assert pair is not None
    clock.advance(timedelta(days=89))
    for _ in range(1100):
        store.open_consent(REQUEST)
    assert store.redeem_code(code) is None
    assert store.rotate_refresh_token(pair.refresh_token.reveal(), client_id="client") is None


def test_a_refresh_token_is_bound_to_its_client(store: GrantStore) -> None:
    pair = store.issue_tokens(family=store.new_family(), client_id="client", scope="internal")
    assert pair is not None
    assert store.rotate_refresh_token(pair.refresh_token.reveal(), client_id="other") is None

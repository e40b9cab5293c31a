"""The verifier's cache: hits still expire, refusals are never cached, the size is bounded."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from ordergate.callers import (
    CallerClaims,
    CallerKey,
    CallerRefusal,
    CallerVerifier,
    KeySource,
    RefusalReason,
    mint,
)
from ordergate.core import SteppedClock

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


class CountingKey(CallerKey):
    """A real key that counts how often it signs: one signature per uncached check."""

    def __init__(self) -> None:
        super().__init__(b"k" * 40, source=KeySource.CALLER_TOKEN_KEY)
        self.signed = 0

    def sign(self, message: bytes) -> bytes:
        self.signed += 1
        return super().sign(message)


def token(key: CallerKey, caller: str = "agent-1", ttl: timedelta = timedelta(minutes=15)) -> str:
    return mint(key, caller=caller, profile="trader", ttl=ttl, now=NOW).reveal()


def test_a_second_check_of_the_same_token_is_served_from_the_cache() -> None:
    key = CountingKey()
    verifier = CallerVerifier(key, SteppedClock(start=NOW))
    value = token(key)
    before = key.signed
    first, second = verifier.check(value), verifier.check(value)
    assert isinstance(first, CallerClaims) and second == first
    assert key.signed == before + 1


def test_a_cache_hit_still_checks_expiry() -> None:
    key = CountingKey()
    clock = SteppedClock(start=NOW)
    verifier = CallerVerifier(key, clock)
    value = token(key, ttl=timedelta(minutes=1))
    assert isinstance(verifier.check(value), CallerClaims)
    clock.advance(timedelta(seconds=59))
    assert isinstance(verifier.check(value), CallerClaims)
    clock.advance(timedelta(seconds=1))
    assert verifier.check(value) == CallerRefusal(RefusalReason.EXPIRED)
    assert verifier.check(value) == CallerRefusal(RefusalReason.EXPIRED)


def test_refused_tokens_are_checked_in_full_every_time() -> None:
    key = CountingKey()
    verifier = CallerVerifier(key, SteppedClock(start=NOW))
    payload, signature = token(key).split(".")
    tampered = f"{payload}.{'B' if signature[0] == 'A' else 'A'}{signature[1:]}"
    before = key.signed
    for _ in range(3):
        assert verifier.check(tampered) == CallerRefusal(RefusalReason.BAD_SIGNATURE)
    assert key.signed == before + 3


def test_the_cache_keeps_at_most_its_size_dropping_the_least_recently_used() -> None:
    key = CountingKey()
    verifier = CallerVerifier(key, SteppedClock(start=NOW), cache_size=2)
    first, second, third = (token(key, caller=name) for name in ("a", "b", "c"))
    verifier.check(first)
    verifier.check(second)
    verifier.check(first)  # first is now the most recently used
    verifier.check(third)  # evicts second
    before = key.signed
    verifier.check(first)
    verifier.check(third)
    assert key.signed == before
    verifier.check(second)
    assert key.signed == before + 1


def test_a_zero_size_cache_checks_every_token_in_full() -> None:
    key = CountingKey()
    verifier = CallerVerifier(key, SteppedClock(start=NOW), cache_size=0)
    value = token(key)
    before = key.signed
    for _ in range(3):
        assert isinstance(verifier.check(value), CallerClaims)
    assert key.signed == before + 3


def test_a_negative_cache_size_is_refused() -> None:
    with pytest.raises(ValueError, match="cache_size"):
        CallerVerifier(CountingKey(), SteppedClock(start=NOW), cache_size=-1)


def test_threads_sharing_a_small_cache_all_get_the_right_claims() -> None:
    key = CountingKey()
    verifier = CallerVerifier(key, SteppedClock(start=NOW), cache_size=3)
    tokens = {f"agent-{n}": token(key, caller=f"agent-{n}") for n in range(8)}
    wrong: list[str] = []

    def work() -> None:
        for _ in range(50):
            for caller, value in tokens.items():
                claims = verifier.verify(value)
                if claims is None or claims.caller != caller:
                    wrong.append(caller)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert wrong == []

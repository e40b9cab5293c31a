"""``ordergate bench tokens``: verifying one caller token, in process.

One token (caller, profile and connection set, as the gateway will see them) is minted under a
fixed key at a fixed instant and checked against a clock standing at that instant, so every
run measures the same work. Cases, in alternating rounds, each call timed with
``time.perf_counter_ns``:

- ``hmac_sha256_bare`` (baseline): one ``hmac.new(key, payload, sha256).digest()`` over a
  message the size of the token's payload part: the floor of any HMAC check;
- ``verify_uncached``: the full check (shape, HMAC, constant-time compare, strict payload,
  expiry) with the cache turned off;
- ``verify_cached``: the same token again with the cache on: a SHA-256 lookup and the expiry
  check. This is what makes checking the token on every call cheap; goal (issue 7): p50 ≤ 20 µs;
- ``verify_tampered``: a token whose signature's first character was changed, refused at the
  compare (refusals are never cached).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from ordergate.bench._stats import Summary, summarise, timed_ns
from ordergate.callers import CallerClaims, CallerKey, CallerVerifier, KeySource, mint
from ordergate.core import SteppedClock

__all__ = ["SIZES", "run_tokens_bench", "scenario"]

# (rounds, calls per case per round, warm-up calls per case)
SIZES = {"quick": (3, 20_000, 2_000), "full": (5, 100_000, 10_000)}

_NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
_KEY = b"bench-only caller-token key, 32+ bytes long"


def scenario() -> tuple[bytes, str, str, SteppedClock]:
    """The key material, a valid token, the same token tampered, and the clock to check at."""
    key = CallerKey(_KEY, source=KeySource.CALLER_TOKEN_KEY)
    token = mint(
        key,
        caller="research-agent.container-7",
        profile="trader",
        ttl=timedelta(minutes=15),
        now=_NOW,
        connection="0f3c2a9be51d47c68a0e5b1d9c7f2e41",
    ).reveal()
    payload, signature = token.split(".")
    flipped = "B" if signature[0] == "A" else "A"
    return _KEY, token, f"{payload}.{flipped}{signature[1:]}", SteppedClock(start=_NOW)


def run_tokens_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    rounds, per_round, warmup = SIZES["quick" if quick else "full"]
    material, token, tampered, clock = scenario()
    key = CallerKey(material, source=KeySource.CALLER_TOKEN_KEY)
    uncached = CallerVerifier(key, clock, cache_size=0)
    cached = CallerVerifier(key, clock)
    message = token.partition(".")[0].encode("ascii")
    if not isinstance(cached.verify(token), CallerClaims) or cached.verify(tampered) is not None:
        raise RuntimeError("tokens bench: the scenario does not verify as it should")
    calls: dict[str, Callable[[], object]] = {
        "hmac_sha256_bare": lambda: hmac.new(material, message, hashlib.sha256).digest(),
        "verify_uncached": lambda: uncached.verify(token),
        "verify_cached": lambda: cached.verify(token),
        "verify_tampered": lambda: cached.verify(tampered),
    }
    for call in calls.values():
        timed_ns(call, warmup)
    samples: dict[str, list[int]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            samples[name] += timed_ns(call, per_round)
    baseline = summarise("tokens", "hmac_sha256_bare", samples.pop("hmac_sha256_bare"))
    emit(baseline)
    for name, timings in samples.items():
        emit(summarise("tokens", name, timings).compared_with(baseline))

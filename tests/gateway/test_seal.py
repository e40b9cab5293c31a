"""Sealed upstream tokens: they open only with the same master secret and the same owner."""

from __future__ import annotations

import pytest

from ordergate.core import Secret
from ordergate.gateway import Sealer, SealError

MASTER = Secret("m" * 48)
TOKEN = b"opaque-upstream-token-value"


def test_a_sealed_value_opens_with_the_same_secret_and_owner() -> None:
    sealer = Sealer(MASTER)
    sealed = sealer.seal(TOKEN, aad=b"connection-1")
    assert sealed.startswith("v1.") and "opaque" not in sealed
    assert Sealer(Secret("m" * 48)).unseal(sealed, aad=b"connection-1") == TOKEN


def test_sealing_twice_gives_different_blobs() -> None:
    sealer = Sealer(MASTER)
    assert sealer.seal(TOKEN, aad=b"c") != sealer.seal(TOKEN, aad=b"c")


@pytest.mark.parametrize(
    "opener",
    [
        lambda blob: Sealer(Secret("n" * 48)).unseal(blob, aad=b"connection-1"),
        lambda blob: Sealer(MASTER).unseal(blob, aad=b"connection-2"),
        lambda blob: Sealer(MASTER).unseal(
            blob[:-2] + ("A" if blob[-2] != "A" else "B") + blob[-1], aad=b"connection-1"
        ),
        lambda blob: Sealer(MASTER).unseal("v1.", aad=b"connection-1"),
        lambda blob: Sealer(MASTER).unseal("v1.%%%", aad=b"connection-1"),
        lambda blob: Sealer(MASTER).unseal(blob[3:], aad=b"connection-1"),
    ],
    ids=["other-secret", "other-owner", "tampered", "empty", "not-base64", "no-version"],
)
def test_a_blob_under_another_key_owner_or_edited_does_not_open(opener: object) -> None:
    blob = Sealer(MASTER).seal(TOKEN, aad=b"connection-1")
    with pytest.raises(SealError) as raised:
        opener(blob)  # type: ignore[operator]
    assert TOKEN.decode() not in str(raised.value)


def test_a_short_master_secret_is_refused_without_showing_it() -> None:
    with pytest.raises(SealError) as raised:
        Sealer(Secret("short-secret"))
    assert "short-secret" not in str(raised.value) and "32 characters" in str(raised.value)


def test_the_sealer_never_shows_its_key() -> None:
    assert repr(Sealer(MASTER)) == "Sealer(<key>)"

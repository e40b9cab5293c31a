"""``CallerKey``: from its own variable or derived from the master secret, never shown."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ordergate.callers import (
    ENV_CALLER_TOKEN_KEY,
    ENV_MASTER_SECRET,
    CallerKey,
    CallerVerifier,
    KeySource,
    mint,
)
from ordergate.core import ConfigError, Secret, SteppedClock
from ordergate.gateway import Sealer

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
DEDICATED = "dedicated-caller-token-key-0123456789abcdef"
MASTER = "master-secret-for-the-whole-gateway-0123456789"


def token(key: CallerKey) -> str:
    return mint(key, caller="a", profile="trader", ttl=timedelta(minutes=5), now=NOW).reveal()


def verifies(key: CallerKey, value: str) -> bool:
    return CallerVerifier(key, SteppedClock(start=NOW)).verify(value) is not None


def test_the_dedicated_variable_wins_over_the_master_secret() -> None:
    key = CallerKey.from_environ({ENV_CALLER_TOKEN_KEY: DEDICATED, ENV_MASTER_SECRET: MASTER})
    assert key.source is KeySource.CALLER_TOKEN_KEY
    assert verifies(CallerKey.from_secret(Secret(DEDICATED)), token(key))


def test_without_the_dedicated_variable_the_key_is_derived_from_the_master_secret() -> None:
    key = CallerKey.from_environ({ENV_MASTER_SECRET: MASTER, ENV_CALLER_TOKEN_KEY: ""})
    assert key.source is KeySource.MASTER_SECRET
    assert verifies(CallerKey.derive(Secret(MASTER)), token(key))


def test_dedicated_and_derived_keys_differ_and_each_verifies_only_its_own_tokens() -> None:
    dedicated = CallerKey.from_environ({ENV_CALLER_TOKEN_KEY: DEDICATED})
    derived = CallerKey.from_environ({ENV_MASTER_SECRET: MASTER})
    assert verifies(dedicated, token(dedicated)) and verifies(derived, token(derived))
    assert not verifies(dedicated, token(derived))
    assert not verifies(derived, token(dedicated))


def test_the_derived_key_is_not_the_master_secret_used_directly() -> None:
    # Its own HKDF salt and info: a token signed with the raw master secret does not verify.
    raw = CallerKey(MASTER.encode(), source=KeySource.MASTER_SECRET)
    assert not verifies(CallerKey.derive(Secret(MASTER)), token(raw))


def test_the_same_master_secret_derives_the_same_key() -> None:
    first = CallerKey.from_environ({ENV_MASTER_SECRET: MASTER})
    assert verifies(CallerKey.from_environ({ENV_MASTER_SECRET: MASTER}), token(first))


@pytest.mark.parametrize("environ", [{}, {ENV_CALLER_TOKEN_KEY: "", ENV_MASTER_SECRET: ""}])
def test_with_neither_variable_set_the_error_names_the_variable_to_set(
    environ: dict[str, str],
) -> None:
    with pytest.raises(ConfigError) as raised:
        CallerKey.from_environ(environ)
    assert raised.value.key == ENV_CALLER_TOKEN_KEY
    assert ENV_MASTER_SECRET in raised.value.reason


@pytest.mark.parametrize(
    ("environ", "variable"),
    [
        ({ENV_CALLER_TOKEN_KEY: "k" * 31, ENV_MASTER_SECRET: MASTER}, ENV_CALLER_TOKEN_KEY),
        ({ENV_MASTER_SECRET: "m" * 31}, ENV_MASTER_SECRET),
    ],
)
def test_a_short_key_or_master_secret_is_refused_naming_it(
    environ: dict[str, str], variable: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        CallerKey.from_environ(environ)
    assert raised.value.key == variable
    for value in environ.values():
        assert value not in str(raised.value)


def test_key_material_shorter_than_the_sealing_floor_is_refused() -> None:
    with pytest.raises(ConfigError) as raised:
        CallerKey(b"k" * 31, source=KeySource.CALLER_TOKEN_KEY)
    assert raised.value.key == ENV_CALLER_TOKEN_KEY
    # The master secret the sealer accepts, this key accepts too: one floor for both.
    Sealer(Secret("m" * 32))
    assert CallerKey.from_environ({ENV_MASTER_SECRET: "m" * 32}).source is KeySource.MASTER_SECRET


def test_no_repr_shows_the_key_or_the_master_secret() -> None:
    dedicated = CallerKey.from_environ({ENV_CALLER_TOKEN_KEY: DEDICATED})
    derived = CallerKey.from_environ({ENV_MASTER_SECRET: MASTER})
    for shown in (
        repr(dedicated),
        repr(derived),
        repr(CallerVerifier(derived, SteppedClock(start=NOW))),
    ):
        assert DEDICATED not in shown and MASTER not in shown
        assert "source=" in shown
    assert ENV_MASTER_SECRET in repr(derived)

"""The key providers on their own: the master secret's KEK and a real PKCS#11 token's
(SoftHSM2), wrapping, unwrapping, re-wrapping, rotating and retiring data keys."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from hsm_testkit import SOFTHSM_MODULE, new_token

from ordergate.core import ConfigError, Secret, redact
from ordergate.gateway import SealError
from ordergate.gateway.keys import (
    KEK_LABEL_PREFIX,
    KeyProviderError,
    MasterSecretProvider,
    Pkcs11Provider,
    open_envelope,
    provider_from_env,
    read_pin_file,
    rewrapped,
    seal_envelope,
)

MASTER = Secret("m" * 40)
OTHER = Secret("n" * 40)
DATA_KEY = bytes(range(32))


def test_the_master_secrets_kek_wraps_and_unwraps_a_data_key() -> None:
    keys = MasterSecretProvider(MASTER)
    key_id, blob = keys.wrap(DATA_KEY)
    assert key_id == keys.key_id and key_id.startswith("master-")
    assert DATA_KEY not in blob
    assert MasterSecretProvider(Secret("m" * 40)).unwrap(key_id, blob) == DATA_KEY
    assert "m" * 40 not in repr(keys)


def test_another_master_secret_is_another_kek_and_unwraps_nothing_of_this_one() -> None:
    key_id, blob = MasterSecretProvider(MASTER).wrap(DATA_KEY)
    other = MasterSecretProvider(OTHER)
    assert other.key_id != key_id
    with pytest.raises(KeyProviderError, match=f"KEK {key_id}, which the master secret does not"):
        other.unwrap(key_id, blob)
    with pytest.raises(KeyProviderError, match="does not unwrap"):
        MasterSecretProvider(MASTER).unwrap(key_id, blob[:-1] + bytes([blob[-1] ^ 1]))


def test_a_data_key_is_32_bytes() -> None:
    with pytest.raises(KeyProviderError, match="32 bytes"):
        MasterSecretProvider(MASTER).wrap(b"short")


def test_the_previous_master_secret_unwraps_and_a_rewrap_moves_the_key_to_the_new_one() -> None:
    old_id, blob = MasterSecretProvider(MASTER).wrap(DATA_KEY)
    keys = MasterSecretProvider(OTHER, previous=[MASTER])
    assert keys.rotate() == keys.key_id != old_id
    new_id, moved = keys.rewrap(old_id, blob)
    assert new_id == keys.key_id
    assert MasterSecretProvider(OTHER).unwrap(new_id, moved) == DATA_KEY
    assert keys.retire([]) == []


def test_a_master_secret_shorter_than_32_characters_is_refused_naming_the_variable() -> None:
    with pytest.raises(ConfigError, match="ORDERGATE_MASTER_SECRET_PREVIOUS"):
        MasterSecretProvider(MASTER, previous=[Secret("short")])


def test_an_envelope_opens_only_with_its_connection_id_and_its_wrapped_key() -> None:
    keys = MasterSecretProvider(MASTER)
    envelope = seal_envelope(keys, b"the session", aad=b"c-1")
    assert envelope.sealed.startswith("v2.") and "session" not in envelope.sealed
    assert "data_key" not in repr(envelope) and str(DATA_KEY) not in repr(envelope)
    plain, data_key = open_envelope(
        keys, envelope.sealed, data_key_wrapped=envelope.data_key_wrapped,
        kek_id=envelope.kek_id, aad=b"c-1",
    )  # fmt: skip
    assert plain == b"the session" and data_key == envelope.data_key
    with pytest.raises(SealError):
        open_envelope(
            keys, envelope.sealed, data_key_wrapped=envelope.data_key_wrapped,
            kek_id=envelope.kek_id, aad=b"c-2",
        )  # fmt: skip
    for bad in ("v1.abc", "v2.", "v2.%%%"):
        with pytest.raises(SealError):
            open_envelope(
                keys, bad, data_key_wrapped=envelope.data_key_wrapped,
                kek_id=envelope.kek_id, aad=b"c-1",
            )  # fmt: skip


# -- a real token ------------------------------------------------------------------------


def test_the_tokens_kek_is_made_on_first_use_non_extractable_and_sensitive() -> None:
    provider = new_token().provider()
    try:
        assert provider.key_id == f"{KEK_LABEL_PREFIX}0001"
        import pkcs11

        session = provider._session  # the token's own view of the key
        (kek,) = session.get_objects({pkcs11.Attribute.LABEL: provider.key_id})
        assert kek[pkcs11.Attribute.EXTRACTABLE] is False
        assert kek[pkcs11.Attribute.SENSITIVE] is True
        with pytest.raises(pkcs11.AttributeSensitive):
            kek[pkcs11.Attribute.VALUE]
    finally:
        provider.close()


def test_the_token_wraps_unwraps_and_rewraps_under_a_rotated_kek_then_retires_the_old() -> None:
    token = new_token()
    provider = token.provider()
    try:
        first, blob = provider.wrap(DATA_KEY)
        assert DATA_KEY not in blob
        assert provider.unwrap(first, blob) == DATA_KEY
        second = provider.rotate()
        assert second == provider.key_id == f"{KEK_LABEL_PREFIX}0002"
        assert provider.unwrap(first, blob) == DATA_KEY  # the old KEK still unwraps
        moved_id, moved = provider.rewrap(first, blob)
        assert moved_id == second and moved != blob
        assert provider.retire([]) == [first]
        with pytest.raises(KeyProviderError, match=f"KEK {first}, which token"):
            provider.unwrap(first, blob)
        # Another session on the same token (another replica) sees the same keys.
        again = token.provider()
        try:
            assert again.key_id == second
            assert again.unwrap(second, moved) == DATA_KEY
        finally:
            again.close()
    finally:
        provider.close()


def test_retire_keeps_the_keks_still_in_use() -> None:
    provider = new_token().provider()
    try:
        first, blob = provider.wrap(DATA_KEY)
        provider.rotate()
        assert provider.retire([first]) == []
        assert provider.unwrap(first, blob) == DATA_KEY
    finally:
        provider.close()


def test_a_blob_from_another_token_does_not_unwrap_and_says_which_kek() -> None:
    one, two = new_token().provider(), new_token().provider()
    try:
        key_id, blob = one.wrap(DATA_KEY)
        # Same label on both tokens; the other token's key of that name does not open it.
        with pytest.raises(
            KeyProviderError, match=f"could not unwrap a data key under KEK {key_id}"
        ):
            two.unwrap(key_id, blob)
        envelope = seal_envelope(one, b"session", aad=b"c")
        new_id, text = rewrapped(one, data_key_wrapped=envelope.data_key_wrapped, kek_id=key_id)
        # Re-wrapped under the same (current) KEK: the same data key comes back out.
        assert new_id == key_id
        assert open_envelope(
            one, envelope.sealed, data_key_wrapped=text, kek_id=new_id, aad=b"c"
        )[0] == b"session"  # fmt: skip
    finally:
        one.close()
        two.close()


def test_a_wrong_pin_or_token_is_refused_by_name_and_the_pin_is_never_shown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    token = new_token()
    with pytest.raises(KeyProviderError, match=f"the PIN for token '{token.label}' is refused"):
        Pkcs11Provider(token.module, token.label, Secret("not-the-pin"))
    with pytest.raises(KeyProviderError, match="ORDERGATE_PKCS11_TOKEN: no token labelled"):
        Pkcs11Provider(token.module, "no-such-token", Secret(token.pin))
    provider = token.provider()
    try:
        assert token.pin not in repr(provider)
        with caplog.at_level(logging.INFO):
            logging.getLogger("ordergate.test").info("pin %s", token.pin)
        assert token.pin not in redact(f"pin {token.pin}")
    finally:
        provider.close()


def test_a_missing_module_names_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(KeyProviderError, match="apt-get install softhsm2"):
        Pkcs11Provider(str(tmp_path / "nothing.so"), "t", Secret("1234"))


# -- the environment --------------------------------------------------------------------


def test_the_environment_chooses_the_master_secret_by_default_with_its_previous() -> None:
    keys = provider_from_env({"ORDERGATE_MASTER_SECRET_PREVIOUS": "n" * 40}, MASTER)
    assert isinstance(keys, MasterSecretProvider)
    old_id, blob = MasterSecretProvider(OTHER).wrap(DATA_KEY)
    assert keys.unwrap(old_id, blob) == DATA_KEY
    with pytest.raises(ConfigError, match="ORDERGATE_KEY_PROVIDER: must be master or pkcs11"):
        provider_from_env({"ORDERGATE_KEY_PROVIDER": "kms"}, MASTER)


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({}, "ORDERGATE_PKCS11_MODULE"),
        ({"ORDERGATE_PKCS11_MODULE": SOFTHSM_MODULE}, "ORDERGATE_PKCS11_TOKEN"),
        (
            {"ORDERGATE_PKCS11_MODULE": SOFTHSM_MODULE, "ORDERGATE_PKCS11_TOKEN": "t"},
            "ORDERGATE_PKCS11_PIN_FILE",
        ),
    ],
)
def test_a_token_needs_its_module_label_and_pin_each_named(
    environ: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        provider_from_env(environ, MASTER, choice="pkcs11")


def test_the_pin_file_must_be_private_and_not_empty(tmp_path: Path) -> None:
    pin = tmp_path / "pin"
    pin.write_text("1234\n")
    os.chmod(pin, 0o644)
    with pytest.raises(
        ConfigError, match=r"ORDERGATE_PKCS11_PIN_FILE: .* \(mode 0644\); chmod 600"
    ):
        read_pin_file(pin)
    os.chmod(pin, 0o600)
    assert read_pin_file(pin).reveal() == "1234"
    pin.write_text("\n")
    with pytest.raises(ConfigError, match="is empty"):
        read_pin_file(pin)
    with pytest.raises(ConfigError, match="cannot read"):
        read_pin_file(tmp_path / "absent")


def test_the_environment_opens_the_token_with_the_pin_from_its_file(tmp_path: Path) -> None:
    token = new_token()
    pin = tmp_path / "pin"
    pin.write_text(token.pin)
    os.chmod(pin, 0o600)
    environ = {**token.env(), "ORDERGATE_PKCS11_PIN": "", "ORDERGATE_PKCS11_PIN_FILE": str(pin)}
    provider = provider_from_env(environ, MASTER)
    try:
        assert isinstance(provider, Pkcs11Provider)
        key_id, blob = provider.wrap(DATA_KEY)
        assert provider.unwrap(key_id, blob) == DATA_KEY
    finally:
        provider.close()
    by_variable = provider_from_env(token.env(), MASTER)
    by_variable.close()

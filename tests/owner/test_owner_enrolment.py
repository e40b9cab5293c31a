"""The enrolment file: 0600, read back whole, never guessed, the passphrase only as scrypt."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ordergate.core import ConfigError
from ordergate.owner import (
    ENROLMENT_FILE,
    EnrolmentError,
    check_passphrase_rules,
    new_enrolment,
    read_enrolment,
    write_enrolment,
)
from ordergate.owner._passphrase import hash_passphrase, passphrase_matches

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
PHRASE = "correct horse battery staple"


@pytest.mark.req("owner.enrolment.private")
def test_an_enrolment_is_written_0600_and_read_back_with_its_secret(tmp_path: Path) -> None:
    path = tmp_path / "home" / ENROLMENT_FILE
    written = new_enrolment(passphrase=PHRASE, now=NOW)
    write_enrolment(path, written)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    read = read_enrolment(path)
    assert read is not None and read.totp_secret == written.totp_secret
    assert read.passphrase is not None and passphrase_matches(PHRASE, read.passphrase)
    assert read.created_at == NOW


@pytest.mark.req("owner.enrolment.passphrase-hashed")
def test_the_passphrase_is_kept_only_as_a_memory_hard_hash(tmp_path: Path) -> None:
    path = tmp_path / ENROLMENT_FILE
    write_enrolment(path, new_enrolment(passphrase=PHRASE, now=NOW))
    text = path.read_text()
    assert PHRASE not in text
    stored = json.loads(text)["passphrase"]
    assert stored["scheme"] == "scrypt" and stored["n"] >= 2**15 and stored["r"] == 8


def test_no_file_is_no_enrolment_and_a_malformed_one_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / ENROLMENT_FILE
    assert read_enrolment(path) is None
    for text in ("{", "[]", '{"version": 2}', '{"version": 1, "totp": {}}'):
        path.write_text(text)
        with pytest.raises(EnrolmentError):
            read_enrolment(path)


def test_an_enrolment_with_other_code_parameters_is_refused_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / ENROLMENT_FILE
    write_enrolment(path, new_enrolment(passphrase=None, now=NOW))
    document = json.loads(path.read_text())
    document["totp"]["digits"] = 8
    path.write_text(json.dumps(document))
    with pytest.raises(EnrolmentError):
        read_enrolment(path)


def test_an_enrolment_repr_shows_neither_the_secret_nor_the_hash() -> None:
    enrolment = new_enrolment(passphrase=PHRASE, now=NOW)
    shown = repr(enrolment)
    assert enrolment.totp_secret.reveal() not in shown
    assert enrolment.passphrase is not None
    assert enrolment.passphrase.key.hex() not in shown and "key" not in repr(enrolment.passphrase)


@pytest.mark.parametrize("phrase", ["short", "123456", "a" * 1025, "two\nlines here ok"])
def test_a_passphrase_that_is_short_long_or_not_one_line_is_refused(phrase: str) -> None:
    with pytest.raises(ConfigError) as refused:
        check_passphrase_rules(phrase)
    assert refused.value.key == "passphrase"


def test_a_wrong_passphrase_does_not_match() -> None:
    stored = hash_passphrase(PHRASE)
    assert not passphrase_matches(PHRASE + "!", stored)
    assert not passphrase_matches("", stored)

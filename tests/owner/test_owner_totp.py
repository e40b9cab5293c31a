"""RFC 6238 codes through pyotp: which step a code is, the drift window, the enrolment URI."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest

from ordergate.core import Secret
from ordergate.owner import looks_like_code, provisioning_uri
from ordergate.owner._totp import matching_step, new_totp_secret

NOW = datetime(2026, 12, 1, 15, 0, 7, tzinfo=UTC)


def _code_at(secret: Secret, instant: datetime) -> str:
    return pyotp.TOTP(secret.reveal()).at(instant)


@pytest.mark.req("owner.totp.rfc6238")
def test_a_code_is_matched_to_its_step_within_one_step_of_drift_either_side() -> None:
    secret = new_totp_secret()
    step = int(NOW.timestamp()) // 30
    for offset in (-1, 0, 1):
        code = _code_at(secret, NOW + timedelta(seconds=30 * offset))
        assert matching_step(secret, code, now=NOW) == step + offset


@pytest.mark.req("owner.totp.rfc6238")
def test_a_code_two_steps_away_or_of_another_secret_matches_nothing() -> None:
    secret, other = new_totp_secret(), new_totp_secret()
    assert matching_step(secret, _code_at(secret, NOW - timedelta(seconds=60)), now=NOW) is None
    assert matching_step(secret, _code_at(secret, NOW + timedelta(seconds=60)), now=NOW) is None
    code = _code_at(other, NOW)
    if code != _code_at(secret, NOW):  # one in a million they coincide
        assert matching_step(secret, code, now=NOW) is None


@pytest.mark.parametrize("text", ["", "12345", "1234567", "12345a", " 123456", "١٢٣٤٥٦"])
def test_only_six_ascii_digits_look_like_a_code(text: str) -> None:
    assert not looks_like_code(text)
    assert matching_step(new_totp_secret(), text, now=NOW) is None


@pytest.mark.req("owner.totp.rfc6238")
def test_the_enrolment_uri_is_an_otpauth_totp_uri_naming_the_secret_and_issuer() -> None:
    secret = new_totp_secret()
    parts = urlsplit(provisioning_uri(secret))
    assert (parts.scheme, parts.netloc, parts.path) == ("otpauth", "totp", "/ordergate:owner")
    query = parse_qs(parts.query)
    assert query["secret"] == [secret.reveal()] and query["issuer"] == ["ordergate"]
    assert len(secret.reveal()) == 32  # 160 bits, base32


def test_a_totp_secret_never_shows_in_its_repr() -> None:
    secret = new_totp_secret()
    assert secret.reveal() not in repr(secret) and secret.reveal() not in str(secret)

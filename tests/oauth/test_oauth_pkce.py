"""RFC 7636 (PKCE) and RFC 8252 (redirect URI) rules, below the endpoints."""

from __future__ import annotations

import io

import pytest
from starlette.datastructures import FormData, UploadFile

from ordergate.oauth import (
    ParameterError,
    is_valid_challenge,
    is_valid_verifier,
    redirect_uri_problem,
    s256_challenge,
    single_param,
    verify_s256,
)

# RFC 7636 Appendix B.
RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_s256_matches_the_rfc_7636_appendix_b_example() -> None:
    assert s256_challenge(RFC_VERIFIER) == RFC_CHALLENGE
    assert verify_s256(RFC_VERIFIER, RFC_CHALLENGE)


def test_a_different_verifier_does_not_match() -> None:
    assert not verify_s256("e" + RFC_VERIFIER[1:], RFC_CHALLENGE)


@pytest.mark.parametrize(
    ("verifier", "valid"),
    [
        ("a" * 42, False),
        ("a" * 43, True),
        ("a" * 128, True),
        ("a" * 129, False),
        ("A-._~" * 10, True),
        ("a" * 42 + "+", False),
        ("a" * 42 + "=", False),
        ("a" * 43 + "\n", False),
        ("é" * 43, False),
    ],
)
def test_verifier_syntax_is_43_to_128_unreserved_characters(verifier: str, valid: bool) -> None:
    assert is_valid_verifier(verifier) is valid


def test_a_malformed_verifier_never_verifies_even_if_its_hash_matches() -> None:
    short = "a" * 42
    assert not verify_s256(short, s256_challenge(short))


@pytest.mark.parametrize(
    ("challenge", "valid"),
    [(RFC_CHALLENGE, True), (RFC_CHALLENGE + "=", False), ("a" * 42, False), ("+" * 43, False)],
)
def test_an_s256_challenge_is_43_base64url_characters(challenge: str, valid: bool) -> None:
    assert is_valid_challenge(challenge) is valid


def test_redirect_uri_rules_name_the_problem() -> None:
    assert redirect_uri_problem("http://127.0.0.1:1234/cb") is None
    assert redirect_uri_problem("http://evil.example/") == (
        "http redirect_uri is allowed only to 127.0.0.1, localhost or [::1]"
    )


def test_a_parameter_that_is_a_file_is_refused() -> None:
    form = FormData([("code", UploadFile(io.BytesIO(b"x"), filename="code"))])
    with pytest.raises(ParameterError):
        single_param(form, "code")

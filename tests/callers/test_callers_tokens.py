"""Caller tokens: the wire format, minting, and every way a token is refused."""

from __future__ import annotations

import base64
import json
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ordergate.callers import (
    MAX_TOKEN_LENGTH,
    MINT_PATTERN,
    CallerClaims,
    CallerKey,
    CallerRefusal,
    CallerVerifier,
    KeySource,
    RefusalReason,
    looks_like_caller_token,
    mint,
)
from ordergate.callers._claims import b64url_encode
from ordergate.core import ConfigError, SteppedClock

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
KEY = CallerKey(b"k" * 40, source=KeySource.CALLER_TOKEN_KEY)
OTHER_KEY = CallerKey(b"o" * 40, source=KeySource.CALLER_TOKEN_KEY)
EXP = int((NOW + timedelta(minutes=15)).timestamp())
MINT = '"mint":"' + "M" * 16 + '"'


def minted(
    *,
    caller: str = "agent-1",
    profile: str = "trader",
    ttl: timedelta = timedelta(minutes=15),
    now: datetime = NOW,
    connection: str | None = None,
) -> str:
    return mint(
        KEY, caller=caller, profile=profile, ttl=ttl, now=now, connection=connection
    ).reveal()


def signed(body: str, key: CallerKey = KEY) -> str:
    """A token whose payload part is exactly ``body`` (JSON text), correctly signed."""
    payload = b64url_encode(body.encode())
    return f"{payload}.{b64url_encode(key.sign(payload.encode()))}"


def check(token: str, at: datetime = NOW) -> CallerClaims | CallerRefusal:
    return CallerVerifier(KEY, SteppedClock(start=at)).check(token)


def refusal(reason: RefusalReason) -> CallerRefusal:
    return CallerRefusal(reason)


def test_a_minted_token_verifies_to_its_caller_profile_and_expiry() -> None:
    claims = CallerVerifier(KEY, SteppedClock(start=NOW)).verify(minted())
    assert claims is not None
    assert claims == CallerClaims(
        "agent-1", "trader", claims.mint_id, NOW + timedelta(minutes=15), None
    )
    assert claims.expires_at.tzinfo is UTC


def test_a_token_minted_with_a_connection_carries_it() -> None:
    claims = check(minted(connection="0f3c2a9be51d47c68a0e5b1d9c7f2e41"))
    assert isinstance(claims, CallerClaims)
    assert claims.connection == "0f3c2a9be51d47c68a0e5b1d9c7f2e41"


def test_the_token_is_payload_dot_hmac_of_the_payload_part_unpadded() -> None:
    token = minted()
    payload, signature = token.split(".")
    assert "=" not in token
    assert signature == b64url_encode(KEY.sign(payload.encode()))
    padded = payload + "=" * (-len(payload) % 4)
    body = json.loads(base64.urlsafe_b64decode(padded))
    assert list(body) == ["v", "caller", "profile", "mint", "exp"]
    assert body == {
        "v": 2, "caller": "agent-1", "profile": "trader", "mint": body["mint"], "exp": EXP
    }  # fmt: skip
    assert MINT_PATTERN.fullmatch(body["mint"])


def test_two_tokens_minted_alike_carry_two_mint_ids() -> None:
    first, second = check(minted()), check(minted())
    assert isinstance(first, CallerClaims) and isinstance(second, CallerClaims)
    assert first.mint_id != second.mint_id


def test_the_expiry_is_rounded_down_to_whole_seconds() -> None:
    claims = check(minted(now=NOW + timedelta(microseconds=900_000)))
    assert isinstance(claims, CallerClaims)
    assert claims.expires_at == NOW + timedelta(minutes=15)


def test_a_tampered_payload_is_refused() -> None:
    signature = minted().split(".")[1]
    body = json.dumps(
        {"v": 2, "caller": "agent-1", "profile": "admin", "mint": "M" * 16, "exp": EXP}
    )
    forged = b64url_encode(body.replace(" ", "").encode())
    assert check(f"{forged}.{signature}") == refusal(RefusalReason.BAD_SIGNATURE)


def test_a_tampered_signature_is_refused() -> None:
    payload, signature = minted().split(".")
    flipped = "B" if signature[5] == "A" else "A"
    token = f"{payload}.{signature[:5]}{flipped}{signature[6:]}"
    assert check(token) == refusal(RefusalReason.BAD_SIGNATURE)


def test_a_same_length_wrong_mac_is_refused_by_the_compare() -> None:
    payload, signature = minted().split(".")
    wrong = b64url_encode(OTHER_KEY.sign(payload.encode()))
    assert len(wrong) == len(signature) and wrong != signature
    assert check(f"{payload}.{wrong}") == refusal(RefusalReason.BAD_SIGNATURE)


def test_swapped_parts_are_refused() -> None:
    payload, signature = minted().split(".")
    assert isinstance(check(f"{signature}.{payload}"), CallerRefusal)


def test_a_token_signed_with_another_key_is_refused() -> None:
    token = mint(
        OTHER_KEY, caller="agent-1", profile="trader", ttl=timedelta(minutes=15), now=NOW
    ).reveal()
    assert check(token) == refusal(RefusalReason.BAD_SIGNATURE)


def test_a_token_is_refused_from_its_expiry_on() -> None:
    token = minted()
    assert isinstance(check(token, NOW + timedelta(minutes=15, seconds=-1)), CallerClaims)
    assert check(token, NOW + timedelta(minutes=15)) == refusal(RefusalReason.EXPIRED)
    assert check(token, NOW + timedelta(days=1)) == refusal(RefusalReason.EXPIRED)


@pytest.mark.parametrize(
    "shape",
    ["{t}.x", "{p}.{s}.", "{p}..{s}", "{p}.{s}.{s}", ".{s}", "{p}.", "{p}{s}", "{p}.{s}="],
)
def test_any_other_number_of_dots_or_an_empty_part_is_refused(shape: str) -> None:
    token = minted()
    payload, signature = token.split(".")
    assert check(shape.format(t=token, p=payload, s=signature)) == refusal(RefusalReason.MALFORMED)


def test_an_oversize_token_is_refused_before_any_other_work() -> None:
    assert check("a" * (MAX_TOKEN_LENGTH + 1)) == refusal(RefusalReason.OVERSIZE)
    padded = minted(caller="c" * 64) + "A" * MAX_TOKEN_LENGTH
    assert check(padded) == refusal(RefusalReason.OVERSIZE)


@pytest.mark.parametrize("bad", ["+", "/", "=", " ", "é", "\x00"])
def test_characters_outside_unpadded_base64url_are_refused(bad: str) -> None:
    payload, signature = minted().split(".")
    assert check(f"{payload[:-1]}{bad}.{signature}") == refusal(RefusalReason.MALFORMED)
    assert check(f"{payload}.{signature[:-1]}{bad}") == refusal(RefusalReason.MALFORMED)


@pytest.mark.parametrize(
    "body",
    [
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":%d,"admin":true}',
        '{"v":2,"caller":"bad name!","profile":"trader",{M}"exp":%d}',
        '{"v":2,"caller":"","profile":"trader",{M}"exp":%d}',
        '{"v":2,"caller":"' + "c" * 65 + '","profile":"trader",{M}"exp":%d}',
        '{"v":2,"caller":"a","profile":"Trader",{M}"exp":%d}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":%d,"connection":"a b"}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":%d,"connection":null}',
        '{"v":2,"caller":7,"profile":"trader",{M}"exp":%d}',
        '{"v":2,"caller":"a","profile":["trader"],{M}"exp":%d}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":"%d"}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":%d.0}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":%d,"exp":1}',
        '{"v":true,"caller":"a","profile":"trader",{M}"exp":%d}',
        '{"v":1,"caller":"a","profile":"trader",{M}"exp":%d}',
        '{"v":2,"caller":"a","profile":"trader","exp":%d}',
        '{"v":2,"caller":"a","profile":"trader","mint":"short","exp":%d}',
        '{"v":2,"caller":"a","profile":"trader","mint":"M#MMMMMMMMMMMMMMM","exp":%d}',
        '{"caller":"a","profile":"trader",{M}"exp":%d}',
        '{"v":2,"caller":"a","exp":%d}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":NaN}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":-%d}',
        '{"v":2,"caller":"a","profile":"trader",{M}"exp":99999999999999}',
        '[1,"a","trader",%d]',
        "not json %d",
    ],
)
def test_a_signed_payload_that_breaks_a_rule_is_refused(body: str) -> None:
    # {M}: a well-formed mint id, so each body breaks the one rule it shows.
    text = (body % EXP if "%d" in body else body).replace("{M}", MINT + ",")
    assert check(signed(text)) == refusal(RefusalReason.BAD_PAYLOAD)


def test_a_payload_that_is_not_utf8_is_refused() -> None:
    payload = b64url_encode(b'{"v":1,"caller":"\xff"}')
    token = f"{payload}.{b64url_encode(KEY.sign(payload.encode()))}"
    assert check(token) == refusal(RefusalReason.BAD_PAYLOAD)


def test_a_non_canonical_base64_spelling_of_the_payload_is_refused() -> None:
    # Find a payload whose last character carries unused bits, then set one of them.
    for length in range(1, 4):
        payload = b64url_encode(
            f'{{"v":2,"caller":"{"c" * length}","profile":"trader",{MINT},"exp":{EXP}}}'.encode()
        )
        if len(payload) % 4:
            break
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(payload[-1])
    variant = payload[:-1] + alphabet[last | 1]
    assert variant != payload
    token = f"{variant}.{b64url_encode(KEY.sign(variant.encode()))}"
    assert check(token) == refusal(RefusalReason.BAD_PAYLOAD)
    assert isinstance(
        check(
            signed(f'{{"v":2,"caller":"c","profile":"p","mint":"MMMMMMMMMMMMMMMM","exp":{EXP}}}')
        ),
        CallerClaims,
    )


def test_verify_answers_none_for_every_refusal() -> None:
    verifier = CallerVerifier(KEY, SteppedClock(start=NOW + timedelta(hours=1)))
    for token in (minted(), "x" * 5000, "no-dot", signed('{"v":2}'), signed('{"v":1}')):
        assert isinstance(verifier.check(token), CallerRefusal)
        assert verifier.verify(token) is None


def test_caller_tokens_are_told_from_opaque_oauth_tokens_by_shape() -> None:
    assert looks_like_caller_token(minted())
    assert looks_like_caller_token(signed('{"v":2}'))
    assert not looks_like_caller_token(secrets.token_urlsafe(32))
    assert not looks_like_caller_token(signed('{"v":1,"caller":"a"}'))
    assert not looks_like_caller_token(signed('{"v":true}'))
    assert not looks_like_caller_token(signed("[1]"))
    assert not looks_like_caller_token("a" * 3000)
    payload, signature = minted().split(".")
    assert not looks_like_caller_token(f"{payload}x.{signature}")


@pytest.mark.parametrize(
    ("field", "overrides"),
    [
        ("caller", {"caller": "has space"}),
        ("caller", {"caller": ""}),
        ("caller", {"caller": "c" * 65}),
        ("profile", {"profile": "Trader"}),
        ("connection", {"connection": "a/b"}),
        ("ttl", {"ttl": timedelta(0)}),
        ("ttl", {"ttl": timedelta(milliseconds=500)}),
        ("ttl", {"ttl": timedelta(hours=-1)}),
        ("ttl", {"ttl": timedelta(hours=24, seconds=1)}),
    ],
)
def test_mint_refuses_a_claim_it_cannot_sign_naming_the_field(
    field: str, overrides: dict[str, Any]
) -> None:
    with pytest.raises(ConfigError) as raised:
        minted(**overrides)
    assert raised.value.key == field


def test_mint_accepts_the_ttl_bounds() -> None:
    for ttl in (timedelta(seconds=1), timedelta(hours=24)):
        claims = check(minted(ttl=ttl))
        assert isinstance(claims, CallerClaims) and claims.expires_at == NOW + ttl


def test_mint_refuses_a_naive_now() -> None:
    with pytest.raises(ValueError, match="naive"):
        minted(now=datetime(2026, 12, 1, 15, 0))


def test_neither_the_minted_secret_nor_the_claims_show_the_token() -> None:
    secret = mint(KEY, caller="agent-1", profile="trader", ttl=timedelta(minutes=5), now=NOW)
    token = secret.reveal()
    claims = check(token)
    assert token not in repr(secret) and token not in str(secret)
    for part in token.split("."):
        assert part not in repr(claims)


def test_a_signed_payload_part_of_impossible_base64_length_is_refused() -> None:
    payload = minted().split(".")[0]
    while len(payload) % 4 != 1:
        payload += "A"
    token = f"{payload}.{b64url_encode(KEY.sign(payload.encode()))}"
    assert check(token) == refusal(RefusalReason.BAD_PAYLOAD)
    assert not looks_like_caller_token(token)

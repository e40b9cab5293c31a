"""The shared transport's pieces the gateway relies on: host and origin rules for a public URL,
decimals written back as the JSON numbers they were read from, results written once, and
request bodies read in whatever encoding JSON allows."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordergate.mcpserve import (
    EncodedResult,
    HostPolicy,
    dumps_decimal_numbers,
    dumps_decimal_strings,
    encoded_tool_result,
    loads_json,
    tool_result,
)


def test_a_public_url_allows_its_own_host_and_origin_and_the_loopback_names() -> None:
    policy = HostPolicy.for_url("https://GW.example.com", speaker="the gateway")
    assert policy.host_allowed(b"gw.example.com")
    assert policy.host_allowed(b"gw.example.com:443")
    assert policy.host_allowed(b"localhost:9999")
    assert policy.host_allowed(b"[::1]:8787")
    assert not policy.host_allowed(b"gw.example.com:8443")
    assert not policy.host_allowed(b"evil.example.com")
    assert not policy.host_allowed(None)
    assert policy.origin_allowed(None)
    assert policy.origin_allowed(b"https://gw.example.com")
    assert policy.origin_allowed(b"https://gw.example.com:443/")
    assert policy.origin_allowed(b"http://127.0.0.1:6274")
    assert not policy.origin_allowed(b"http://gw.example.com")
    assert not policy.origin_allowed(b"null")
    assert not policy.origin_allowed(b"https://evil.example.com")


def test_a_public_url_with_its_default_port_spelled_out_also_allows_the_bare_host() -> None:
    policy = HostPolicy.for_url("http://gw.example.com:80")
    assert policy.host_allowed(b"gw.example.com")
    assert policy.origin_allowed(b"http://gw.example.com")
    assert HostPolicy.for_url("http://10.0.0.5:8787").host_allowed(b"10.0.0.5:8787")
    assert not HostPolicy.for_url("http://10.0.0.5:8787").host_allowed(b"10.0.0.5")


def test_a_public_url_must_be_http_with_a_host() -> None:
    for bad in ("ftp://gw.example.com", "http://", "gw.example.com"):
        with pytest.raises(ValueError, match="http"):
            HostPolicy.for_url(bad)


def test_refusal_texts_say_what_the_server_answers() -> None:
    assert HostPolicy(speaker="the venue").host_refusal == (
        b"Host not allowed: the venue answers loopback names only"
    )
    assert HostPolicy(speaker="the venue").origin_refusal == (
        b"Origin not allowed: the venue answers loopback origins only"
    )
    assert HostPolicy.for_url("http://gw.example").origin_refusal == (
        b"Origin not allowed: the server answers its own origin and loopback origins only"
    )


def test_decimals_go_back_out_as_the_json_numbers_they_were_read_from() -> None:
    text = '{"a":1.50,"b":[1E+2,-0.000001,7],"c":"1.50","d":{"e":0.10}}'
    parsed = json.loads(text, parse_float=Decimal)
    assert dumps_decimal_numbers(parsed).decode() == text
    assert dumps_decimal_strings(parsed).decode() == (
        '{"a":"1.50","b":["100","-0.000001",7],"c":"1.50","d":{"e":"0.10"}}'
    )


def test_strings_that_look_like_the_number_marker_are_left_alone() -> None:
    value = {"s": "\x00deadbeef:1.5", "n": Decimal("2.5")}
    assert json.loads(dumps_decimal_numbers(value), parse_float=Decimal) == value


def test_only_finite_decimals_and_json_types_can_be_written() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        dumps_decimal_numbers({"x": Decimal("NaN")})
    with pytest.raises(TypeError, match="set"):
        dumps_decimal_numbers({"x": {1}})
    with pytest.raises(TypeError, match="set"):
        dumps_decimal_strings({"x": {1}})


_PAYLOADS = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.text()
        | st.decimals(allow_nan=False, allow_infinity=False),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
        ),
        max_leaves=12,
    ),
    max_size=4,
)


@given(_PAYLOADS, st.booleans())
def test_a_result_written_once_is_the_bytes_its_dict_is_written_as(
    payload: dict[str, object], is_error: bool
) -> None:
    for dumps in (dumps_decimal_numbers, dumps_decimal_strings):
        encoded = encoded_tool_result(payload, is_error=is_error, dumps=dumps)
        assert encoded.json == dumps(tool_result(payload, is_error=is_error, dumps=dumps))


def test_a_result_written_once_reads_back_as_its_dict_with_decimal_amounts() -> None:
    payload = {"data": {"price": Decimal("1.50"), "note": 'é "quoted"'}, "guide": "g"}
    encoded = encoded_tool_result(payload, is_error=False, dumps=dumps_decimal_numbers)
    assert isinstance(encoded, EncodedResult)
    assert encoded.decoded() == tool_result(payload, is_error=False, dumps=dumps_decimal_numbers)
    assert b'"price":1.50' in encoded.json  # the number as it was read, twice over


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32-be"])
def test_a_request_body_in_any_json_encoding_reads_as_the_same_value(encoding: str) -> None:
    text = '{"jsonrpc":"2.0","id":1,"params":{"q":1.50,"s":"\u00e9"}}'
    value = {"jsonrpc": "2.0", "id": 1, "params": {"q": Decimal("1.50"), "s": "é"}}
    assert loads_json(text.encode(encoding)) == value

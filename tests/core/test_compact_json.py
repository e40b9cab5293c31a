"""``compact_json``: the encoder built once writes what ``json.dumps`` writes, character for
character, whatever the value; ``json_text`` reads bytes as ``json.loads`` reads them."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordergate.core import compact_json, json_text


def _as_text(value: object) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_ENCODE = compact_json(_as_text)

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.decimals(allow_nan=False, allow_infinity=False)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=_as_text)


@given(_VALUES)
def test_it_writes_what_json_dumps_writes(value: Any) -> None:
    assert _ENCODE(value) == _dumps(value)


def test_it_escapes_to_ascii_and_asks_default_only_for_what_json_cannot_write() -> None:
    assert (
        _ENCODE({"é": "\u2028\x00", "n": Decimal("1.50")})
        == '{"\\u00e9":"\\u2028\\u0000","n":"1.50"}'
    )
    with pytest.raises(TypeError, match="not JSON serialisable: object"):
        _ENCODE({"x": object()})


def test_each_encoder_keeps_its_own_default() -> None:
    marked = compact_json(lambda value: f"<{value}>")
    assert marked([Decimal("2")]) == '["<2>"]'
    assert _ENCODE([Decimal("2")]) == '["2"]'


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16-le", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("text", ['{"a":"\u00e9"}', "[1]", "{}", '"x"'])
def test_json_text_reads_bytes_as_json_loads_does(encoding: str, text: str) -> None:
    body = text.encode(encoding)
    assert json.loads(json_text(body)) == json.loads(body) == json.loads(text)

"""Canonical JSON, the time format and money units the chain is built on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from uuid import UUID

import pytest

from ordergate.core import to_us
from ordergate.ledger import canonical_json
from ordergate.ledger._canonical import from_units, has_control, to_units
from ordergate.store import iso, parse_iso


def test_canonical_json_sorts_keys_and_writes_decimals_as_wire_strings() -> None:
    value = {"b": [Decimal("1.50"), None, True, 3], "a": {"z": UUID(int=1), "y": "é"},
             "t": datetime(2026, 12, 1, 10, tzinfo=timezone(timedelta(hours=-5)))}  # fmt: skip
    assert canonical_json(value) == (
        '{"a":{"y":"\\u00e9","z":"00000000-0000-0000-0000-000000000001"},'
        '"b":["1.50",null,true,3],"t":"2026-12-01T15:00:00.000000Z"}'
    )
    assert canonical_json({"b": 1, "a": 2}) == canonical_json({"a": 2, "b": 1})


@pytest.mark.parametrize("bad", [{"x": 1.5}, {"x": object()}, {1: "a"}, [b"raw"]])
def test_canonical_json_refuses_floats_objects_and_non_string_keys(bad: object) -> None:
    with pytest.raises(TypeError):
        canonical_json(bad)


def test_times_are_fixed_width_utc_and_round_trip() -> None:
    instant = datetime(2026, 12, 1, 15, 0, 0, 5, tzinfo=UTC)
    assert iso(instant) == "2026-12-01T15:00:00.000005Z"
    assert parse_iso(iso(instant)) == instant
    assert to_us(datetime(1970, 1, 1, 0, 0, 1, 7, tzinfo=UTC)) == 1_000_007
    with pytest.raises(ValueError):
        iso(datetime(2026, 12, 1))


def test_money_units_round_up_to_a_hundred_millionth_and_back() -> None:
    assert to_units(Decimal("1.000000001")) == 100_000_001
    assert to_units(Decimal("-0.000000001")) == 0
    assert from_units(123_450_000) == Decimal("1.2345")
    assert from_units(0) == 0
    with pytest.raises(ValueError):
        to_units(Decimal("Infinity"))


def test_control_characters_are_found_and_ordinary_text_passes() -> None:
    assert has_control("a\x1fb") and has_control("\x7f") and has_control("a\nb")
    assert not has_control("agent-1 (été)")
    assert not has_control("\u00a0")  # not printable, but not a control character either

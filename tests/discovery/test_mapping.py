"""Canonical order fields mapped onto the property names a schema advertises."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from capability_testkit import FOREIGN, tool

from ordergate.core import DecimalFieldError, Side, ToolError
from ordergate.discovery._mapping import (
    CANONICAL_FIELDS,
    SYNONYMS,
    UnmappedField,
    UnsupportedField,
    canonical_of,
    map_order,
    property_for,
)
from ordergate.discovery._validate import check_arguments
from ordergate.inventory import load_inventory


def schema_of(name: str) -> dict[str, Any]:
    return load_inventory()[name].input_schema


def test_canonical_fields_cover_the_order_and_synonyms_never_overlap() -> None:
    assert set(CANONICAL_FIELDS) >= {
        "symbol", "side", "quantity", "notional", "type", "limit", "stop", "time_in_force",
        "session", "account",
    }  # fmt: skip
    every = [synonym for synonyms in SYNONYMS.values() for synonym in synonyms]
    assert len(every) == len(set(every))


def test_an_equity_order_maps_onto_robinhoods_names_with_amounts_as_canonical_strings() -> None:
    schema = schema_of("place_equity_order")
    wire = map_order(
        {
            "account": "5QR12345",
            "symbol": "AAPL",
            "side": Side.BUY,
            "type": "limit",
            "quantity": Decimal("1.500"),
            "limit": 187,
            "stop": None,
            "time_in_force": "gtc",
            "session": "extended_hours",
            "ref_id": "0c9f3a56-5f6f-4c39-9d53-2a2d8f0c7c11",
        },
        schema,
    )
    assert wire == {
        "account_number": "5QR12345",
        "symbol": "AAPL",
        "side": "buy",
        "type": "limit",
        "quantity": "1.500",
        "limit_price": "187",
        "time_in_force": "gtc",
        "market_hours": "extended_hours",
        "ref_id": "0c9f3a56-5f6f-4c39-9d53-2a2d8f0c7c11",
    }
    check_arguments(wire, schema)


def test_a_crypto_order_maps_its_account_onto_the_rhs_account_number() -> None:
    wire = map_order(
        {
            "account": "RHS-1",
            "symbol": "BTC-USD",
            "side": "buy",
            "type": "market",
            "notional": "25",
        },
        schema_of("place_crypto_order"),
    )
    assert wire == {
        "rhs_account_number": "RHS-1",
        "symbol": "BTC-USD",
        "side": "buy",
        "type": "market",
        "dollar_amount": "25",
    }


def test_a_schema_naming_fields_pair_order_type_and_amount_is_mapped_onto_those_names() -> None:
    schema = FOREIGN["crypto_place"]["inputSchema"]
    wire = map_order(
        {"symbol": "ETH-USD", "side": "sell", "type": "market", "notional": Decimal("10.00")},
        schema,
    )
    assert wire == {"pair": "ETH-USD", "side": "sell", "order_type": "market", "amount": "10.00"}
    check_arguments(wire, schema)


def test_a_stock_schema_naming_ticker_order_side_and_qty_is_mapped_onto_those_names() -> None:
    wire = map_order(
        {
            "account": "A1",
            "symbol": "MSFT",
            "side": "buy",
            "type": "market",
            "quantity": 2,
            "ref_id": "r",
        },
        FOREIGN["place_order"]["inputSchema"],
    )
    assert wire == {
        "account_id": "A1",
        "ticker": "MSFT",
        "order_side": "buy",
        "order_type": "market",
        "qty": "2",
        "client_order_id": "r",
    }


@pytest.mark.req("discovery.mapping.unmapped-required-fails")
def test_a_required_property_no_canonical_field_knows_raises_unmapped_field() -> None:
    # The venue renamed ``symbol`` to something ordergate has never heard of.
    renamed = tool(
        "place_crypto_order", "instrument_ref", "side", "type", required=("instrument_ref", "side")
    )["inputSchema"]
    with pytest.raises(UnmappedField) as raised:
        map_order({"side": "buy", "type": "market"}, renamed, tool="place_crypto_order")
    error = raised.value
    assert isinstance(error, ToolError)
    assert (error.code, error.field, error.canonical, error.tool) == (
        "unmapped_required_field",
        "instrument_ref",
        None,
        "place_crypto_order",
    )


@pytest.mark.req("discovery.mapping.unmapped-required-fails")
def test_a_required_property_whose_canonical_field_was_not_given_raises_unmapped_field() -> None:
    with pytest.raises(UnmappedField) as raised:
        map_order(
            {"account": "A", "symbol": "AAPL", "side": "buy"}, schema_of("place_equity_order")
        )
    assert (raised.value.field, raised.value.canonical) == ("type", "type")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"session": "regular_hours"}, "session"),  # crypto trades 24/7: no market_hours
        ({"colour": "red"}, "colour"),  # not a canonical field at all
    ],
)
def test_a_field_the_schema_has_no_property_for_is_refused(
    fields: dict[str, object], field: str
) -> None:
    order = {"account": "R", "symbol": "BTC-USD", "side": "buy", "type": "market", **fields}
    with pytest.raises(UnsupportedField) as raised:
        map_order(order, schema_of("place_crypto_order"))
    assert (raised.value.code, raised.value.field) == ("unsupported_field", field)


def test_extra_arguments_pass_under_their_wire_names_when_the_schema_has_them() -> None:
    lots = [{"open_lot_id": "L1", "quantity": "1"}]
    wire = map_order(
        {"account": "A", "symbol": "AAPL", "side": "sell", "type": "market", "quantity": "1"},
        schema_of("place_equity_order"),
        extra={"tax_lots": lots, "ref_id": None},
    )
    assert wire["tax_lots"] == lots
    assert "ref_id" not in wire


@pytest.mark.parametrize(
    "extra",
    [{"legs": []}, {"symbol": "MSFT"}],
    ids=["not-in-schema", "already-mapped"],
)
def test_an_extra_argument_the_schema_lacks_or_that_was_mapped_already_is_refused(
    extra: dict[str, object],
) -> None:
    with pytest.raises(UnsupportedField) as raised:
        map_order(
            {"account": "A", "symbol": "AAPL", "side": "buy", "type": "market"},
            schema_of("place_equity_order"),
            extra=extra,
        )
    assert raised.value.field == next(iter(extra))


def numeric_schema(kind: object) -> dict[str, Any]:
    return {"type": "object", "properties": {"qty": {"type": kind}, "amount": {}}}


@pytest.mark.parametrize("kind", ["number", "integer", ["null", "integer"]])
def test_a_whole_amount_goes_as_a_json_integer_where_the_schema_wants_a_number(
    kind: object,
) -> None:
    assert map_order({"quantity": Decimal("3.00")}, numeric_schema(kind)) == {"qty": 3}


def test_a_fractional_amount_is_refused_where_the_schema_wants_a_json_number() -> None:
    with pytest.raises(UnsupportedField) as raised:
        map_order({"quantity": "0.5"}, numeric_schema("number"))
    assert raised.value.field == "quantity"


def test_an_amount_for_an_untyped_property_goes_as_a_canonical_string() -> None:
    assert map_order({"notional": Decimal("1E+2")}, numeric_schema("number")) == {"amount": "100"}


@pytest.mark.parametrize("value", [0.1, "ten", "", True, [1]])
def test_an_amount_that_is_not_a_decimal_number_is_refused_naming_the_field(value: object) -> None:
    with pytest.raises(DecimalFieldError) as raised:
        map_order({"limit": value}, schema_of("place_equity_order"))
    assert raised.value.field == "limit"


def test_a_schema_without_a_required_list_requires_nothing() -> None:
    assert map_order({}, {"type": "object", "required": "symbol"}) == {}


def test_a_schema_whose_properties_are_not_an_object_takes_no_field() -> None:
    with pytest.raises(UnsupportedField):
        map_order({"side": "buy"}, {"properties": ["side"]})


def test_required_entries_that_are_not_names_are_ignored() -> None:
    schema = {"properties": {"side": {"type": "string"}}, "required": ["side", 3]}
    assert map_order({"side": "buy"}, schema) == {"side": "buy"}


def test_property_names_and_canonical_fields_translate_both_ways() -> None:
    schema = FOREIGN["crypto_place"]["inputSchema"]
    assert property_for("symbol", schema) == "pair"
    assert property_for("limit", schema) is None
    assert property_for("colour", schema) is None
    assert canonical_of("rhs_account_number") == "account"
    assert canonical_of("legs") is None


def test_an_amount_for_a_boolean_subschema_goes_as_a_canonical_string() -> None:
    assert map_order({"quantity": 7}, {"properties": {"quantity": True}}) == {"quantity": "7"}

"""The engine's records as JSON and back, exactly: an equity order with its terms and
executions, a tax lot, a crypto order and holding, an option order and position (each with
its contracts), a closed trade, and the open state of a whole book.

Amounts are ``Decimal`` strings (``str`` round-trips every digit), instants the store's one
time encoding (``ordergate.store.iso``, microseconds, UTC). A decoded record equals the one
encoded (tests check every field), so an engine reloaded from storage behaves as the one that
wrote it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ordergate.core import (
    CryptoOrderState,
    CryptoOrderType,
    CryptoTimeInForce,
    MarketHours,
    OptionDirection,
    OptionPositionEffect,
    OrderState,
    OrderType,
    PlacedAgent,
    Side,
    TimeInForce,
)
from ordergate.sandbox.market import (
    CryptoPair,
    MinTicks,
    OptionInstrument,
    OptionType,
    Tradability,
)
from ordergate.sandbox.venue._crypto_book import CryptoHolding
from ordergate.sandbox.venue._crypto_model import CryptoExecution, CryptoOrder, CryptoTerms
from ordergate.sandbox.venue._equity_market import EquityListing
from ordergate.sandbox.venue._equity_model import EquityOrder, Execution, OrderTerms
from ordergate.sandbox.venue._options_book import OptionPosition
from ordergate.sandbox.venue._options_model import (
    OptionExecution,
    OptionLeg,
    OptionOrder,
    OptionOrderType,
    OptionTerms,
)
from ordergate.sandbox.venue._positions import ClosedTrade, TaxLot
from ordergate.store import iso, parse_iso

__all__ = [
    "OpenState",
    "decode_closed_trade",
    "decode_crypto_order",
    "decode_option_order",
    "decode_option_position",
    "decode_order",
    "decode_state",
    "encode_closed_trade",
    "encode_crypto_order",
    "encode_option_order",
    "encode_option_position",
    "encode_order",
    "encode_state",
]

Json = dict[str, Any]

# A field of a record: its name, how its value is written, how it is read back. A record's
# codec is a tuple of them (``_encode``/``_decode``); what no field kind fits (a listing, an
# instrument, lots, executions) is written beside them by hand.
_Field = tuple[str, Callable[[Any], Any], Callable[[Any], Any]]


def _same(value: Any) -> Any:
    return value


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _undec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _when(value: datetime | None) -> str | None:
    return None if value is None else iso(value)


def _unwhen(value: str | None) -> datetime | None:
    return None if value is None else parse_iso(value)


def _text(*names: str) -> tuple[_Field, ...]:
    """Values JSON holds as they are (text, integers, flags, ``None``)."""
    return tuple((name, _same, _same) for name in names)


def _amounts(*names: str) -> tuple[_Field, ...]:
    return tuple((name, str, Decimal) for name in names)


def _maybe_amounts(*names: str) -> tuple[_Field, ...]:
    return tuple((name, _dec, _undec) for name in names)


def _instants(*names: str) -> tuple[_Field, ...]:
    return tuple((name, iso, parse_iso) for name in names)


def _maybe_instants(*names: str) -> tuple[_Field, ...]:
    return tuple((name, _when, _unwhen) for name in names)


def _choice(name: str, kind: Callable[[str], Any]) -> _Field:
    """An enumeration, written as its value."""
    return (name, str, kind)


def _encode(record: Any, fields: tuple[_Field, ...]) -> Json:
    return {name: write(getattr(record, name)) for name, write, _ in fields}


def _decode(raw: Json, fields: tuple[_Field, ...]) -> Json:
    """The keyword arguments ``fields`` read back from ``raw``."""
    return {name: read(raw[name]) for name, _, read in fields}


# What every order carries through its life, whatever it trades.
_ORDER_LIFE = (
    *_text("id", "ref_id", "reject_reason", "doomed_reason", "sequence"),
    *_instants("created_at", "confirm_at"),
    *_maybe_instants("updated_at", "next_check"),
    _choice("placed_agent", PlacedAgent),
)
# What an equity or crypto order's terms carry alike.
_TICKET = (
    *_text("account_number"),
    _choice("side", Side),
    *_amounts("quantity", "estimated_price"),
    *_maybe_amounts("dollar_amount", "limit_price", "stop_price"),
)

_LISTING = _text(
    "symbol",
    "instrument_id",
    "name",
    "simple_name",
    "tradeable",
    "fractional",
    "all_day",
    "country",
    "state",
)


def _lots(pairs: list[tuple[str, Decimal]] | tuple[tuple[str, Decimal], ...] | None) -> Any:
    return None if pairs is None else [[lot_id, str(quantity)] for lot_id, quantity in pairs]


def _unlots(raw: list[list[str]] | None) -> list[tuple[str, Decimal]] | None:
    return None if raw is None else [(lot_id, Decimal(quantity)) for lot_id, quantity in raw]


_EQUITY_TERMS = (
    *_TICKET,
    _choice("type", OrderType),
    _choice("time_in_force", TimeInForce),
    _choice("market_hours", MarketHours),
)
_EQUITY_ORDER = (
    *_ORDER_LIFE,
    *_maybe_instants("expires_at"),
    _choice("state", OrderState),
    *_text("triggered"),
)


def encode_order(order: EquityOrder) -> Json:
    terms = order.terms
    return {
        **_encode(order, _EQUITY_ORDER),
        "terms": {
            **_encode(terms, _EQUITY_TERMS),
            "listing": _encode(terms.listing, _LISTING),
            "tax_lots": _lots(terms.tax_lots),
        },
        "executions": [
            [e.id, str(e.price), str(e.quantity), iso(e.timestamp), str(e.fees)]
            for e in order.executions
        ],
        "lots_left": _lots(order.lots_left),
    }


def decode_order(raw: Json) -> EquityOrder:
    terms = raw["terms"]
    tax_lots = _unlots(terms["tax_lots"])
    return EquityOrder(
        **_decode(raw, _EQUITY_ORDER),
        terms=OrderTerms(
            **_decode(terms, _EQUITY_TERMS),
            listing=EquityListing(**_decode(terms["listing"], _LISTING)),
            tax_lots=None if tax_lots is None else tuple(tax_lots),
        ),
        executions=[
            Execution(
                id=e_id,
                price=Decimal(price),
                quantity=Decimal(quantity),
                timestamp=parse_iso(at),
                fees=Decimal(fees),
            )
            for e_id, price, quantity, at, fees in raw["executions"]
        ],
        lots_left=_unlots(raw["lots_left"]),
    )


_LOT = (
    *_text("lot_id", "account_number", "symbol", "instrument_id", "order_id", "execution_id"),
    *_amounts("quantity", "original_quantity", "price"),
    *_instants("acquired_at"),
)

_PAIR = (
    *_text("symbol", "name", "asset_code", "spread_bp", "volatility", "quote_code"),
    *_amounts(
        "base_price", "quote_increment", "asset_increment", "min_order_size", "max_order_size"
    ),
    _choice("tradability", Tradability),
)

_CRYPTO_TERMS = (
    *_TICKET,
    *_text("rhs_account_number"),
    _choice("type", CryptoOrderType),
    _choice("time_in_force", CryptoTimeInForce),
)
_CRYPTO_ORDER = (
    *_ORDER_LIFE,
    *_maybe_instants("expires_at"),
    _choice("state", CryptoOrderState),
    *_text("triggered"),
)


def encode_crypto_order(order: CryptoOrder) -> Json:
    terms = order.terms
    return {
        **_encode(order, _CRYPTO_ORDER),
        "terms": {**_encode(terms, _CRYPTO_TERMS), "pair": _encode(terms.pair, _PAIR)},
        "executions": [
            [e.id, str(e.price), str(e.quantity), str(e.notional), iso(e.timestamp)]
            for e in order.executions
        ],
    }


def decode_crypto_order(raw: Json) -> CryptoOrder:
    terms = raw["terms"]
    return CryptoOrder(
        **_decode(raw, _CRYPTO_ORDER),
        terms=CryptoTerms(
            **_decode(terms, _CRYPTO_TERMS), pair=CryptoPair(**_decode(terms["pair"], _PAIR))
        ),
        executions=[
            CryptoExecution(
                id=e_id,
                price=Decimal(price),
                quantity=Decimal(quantity),
                notional=Decimal(notional),
                timestamp=parse_iso(at),
            )
            for e_id, price, quantity, notional, at in raw["executions"]
        ],
    )


_HOLDING = (
    *_text("holding_id", "account_number"),
    *_amounts("quantity", "cost"),
    *_instants("opened_at", "updated_at"),
)


def _encode_holding(holding: CryptoHolding) -> Json:
    return {**_encode(holding, _HOLDING), "pair": _encode(holding.pair, _PAIR)}


def _decode_holding(raw: Json) -> CryptoHolding:
    return CryptoHolding(**_decode(raw, _HOLDING), pair=CryptoPair(**_decode(raw["pair"], _PAIR)))


_TICKS = ("above_tick", "below_tick", "cutoff_price")

_INSTRUMENT = (
    *_text("id", "chain_id", "chain_symbol", "state", "occ_symbol", "underlying_type"),
    _choice("type", OptionType),
    *_amounts("strike_price", "trade_value_multiplier"),
    ("expiration_date", date.isoformat, date.fromisoformat),
    *_instants("expires_at", "sellout_datetime"),
    _choice("tradability", Tradability),
    (
        "min_ticks",
        lambda ticks: [str(getattr(ticks, name)) for name in _TICKS],
        lambda raw: MinTicks(*(Decimal(tick) for tick in raw)),
    ),
)

_OPTION_TERMS = (
    *_text("account_number", "quantity"),
    _choice("direction", OptionDirection),
    _choice("type", OptionOrderType),
    *_maybe_amounts("price"),
    _choice("time_in_force", TimeInForce),
    *_amounts("estimated_price", "collateral"),
)
_OPTION_ORDER = (
    *_ORDER_LIFE,
    *_instants("expires_at"),
    _choice("state", OrderState),
    *_maybe_amounts("net_price"),
)


def encode_option_order(order: OptionOrder) -> Json:
    terms = order.terms
    return {
        **_encode(order, _OPTION_ORDER),
        "terms": {
            **_encode(terms, _OPTION_TERMS),
            "legs": [
                [
                    _encode(leg.instrument, _INSTRUMENT),
                    str(leg.side),
                    str(leg.position_effect),
                    leg.ratio_quantity,
                ]
                for leg in terms.legs
            ],
        },
        "leg_ids": list(order.leg_ids),
        "executions": [
            [[e.id, str(e.price), e.quantity, iso(e.timestamp)] for e in leg]
            for leg in order.executions
        ],
    }


def decode_option_order(raw: Json) -> OptionOrder:
    terms = raw["terms"]
    return OptionOrder(
        **_decode(raw, _OPTION_ORDER),
        terms=OptionTerms(
            **_decode(terms, _OPTION_TERMS),
            legs=tuple(
                OptionLeg(
                    instrument=OptionInstrument(**_decode(instrument, _INSTRUMENT)),
                    side=Side(side),
                    position_effect=OptionPositionEffect(effect),
                    ratio_quantity=ratio,
                )
                for instrument, side, effect, ratio in terms["legs"]
            ),
        ),
        leg_ids=tuple(raw["leg_ids"]),
        executions=[
            [
                OptionExecution(
                    id=e_id, price=Decimal(price), quantity=quantity, timestamp=parse_iso(at)
                )
                for e_id, price, quantity, at in leg
            ]
            for leg in raw["executions"]
        ],
    )


_POSITION = (
    *_text("position_id", "account_number", "quantity"),
    *_amounts("average_price"),
    *_instants("opened_at", "updated_at"),
)


def encode_option_position(position: OptionPosition) -> Json:
    return {
        **_encode(position, _POSITION),
        "instrument": _encode(position.instrument, _INSTRUMENT),
        "opens": [[iso(at), contracts, str(price)] for at, contracts, price in position.opens],
    }


def decode_option_position(raw: Json) -> OptionPosition:
    return OptionPosition(
        **_decode(raw, _POSITION),
        instrument=OptionInstrument(**_decode(raw["instrument"], _INSTRUMENT)),
        opens=[(parse_iso(at), contracts, Decimal(price)) for at, contracts, price in raw["opens"]],
    )


_TRADE = (
    *_text(
        "trade_id",
        "account_number",
        "asset_class",
        "symbol",
        "instrument_id",
        "open_lot_id",
        "order_id",
        "execution_id",
    ),
    *_amounts("quantity", "open_price", "close_price", "cost_basis", "proceeds", "fees"),
    *_instants("opened_at", "closed_at"),
)


def encode_closed_trade(trade: ClosedTrade) -> Json:
    return _encode(trade, _TRADE)


def decode_closed_trade(raw: Json) -> ClosedTrade:
    return ClosedTrade(**_decode(raw, _TRADE))


@dataclass(frozen=True, slots=True)
class OpenState:
    """Everything of a book that is still open: what the engine keeps between calls."""

    ids: int
    synced_to: datetime | None
    cash: dict[str, Decimal]
    holds: dict[str, dict[str, Decimal]]
    sequence: int
    trades: int
    splits_applied: frozenset[tuple[str, Decimal, datetime]]
    orders: list[EquityOrder]
    lots: list[TaxLot]
    crypto_sequence: int = 0
    crypto_orders: list[CryptoOrder] = field(default_factory=list)
    crypto_holdings: list[CryptoHolding] = field(default_factory=list)
    option_sequence: int = 0
    option_orders: list[OptionOrder] = field(default_factory=list)
    option_positions: list[OptionPosition] = field(default_factory=list)


def encode_state(state: OpenState) -> Json:
    return {
        "ids": state.ids,
        "synced_to": _when(state.synced_to),
        "cash": {number: str(cash) for number, cash in sorted(state.cash.items())},
        "holds": {
            number: {key: str(amount) for key, amount in holds.items()}
            for number, holds in sorted(state.holds.items())
        },
        "sequence": state.sequence,
        "trades": state.trades,
        "splits_applied": sorted(
            [symbol, str(ratio), iso(at)] for symbol, ratio, at in state.splits_applied
        ),
        "orders": [encode_order(order) for order in state.orders],
        "lots": [_encode(lot, _LOT) for lot in state.lots],
        "crypto_sequence": state.crypto_sequence,
        "crypto_orders": [encode_crypto_order(order) for order in state.crypto_orders],
        "crypto_holdings": [_encode_holding(holding) for holding in state.crypto_holdings],
        "option_sequence": state.option_sequence,
        "option_orders": [encode_option_order(order) for order in state.option_orders],
        "option_positions": [encode_option_position(p) for p in state.option_positions],
    }


def decode_state(raw: Json) -> OpenState:
    return OpenState(
        ids=raw["ids"],
        synced_to=_unwhen(raw["synced_to"]),
        cash={number: Decimal(cash) for number, cash in raw["cash"].items()},
        holds={
            number: {key: Decimal(amount) for key, amount in holds.items()}
            for number, holds in raw["holds"].items()
        },
        sequence=raw["sequence"],
        trades=raw["trades"],
        splits_applied=frozenset(
            (symbol, Decimal(ratio), parse_iso(at)) for symbol, ratio, at in raw["splits_applied"]
        ),
        orders=[decode_order(order) for order in raw["orders"]],
        lots=[TaxLot(**_decode(lot, _LOT)) for lot in raw["lots"]],
        # A book stored before the engine carried crypto has none open.
        crypto_sequence=raw.get("crypto_sequence", 0),
        crypto_orders=[decode_crypto_order(order) for order in raw.get("crypto_orders", [])],
        crypto_holdings=[_decode_holding(h) for h in raw.get("crypto_holdings", [])],
        # A book stored before the engine carried options has none open.
        option_sequence=raw.get("option_sequence", 0),
        option_orders=[decode_option_order(order) for order in raw.get("option_orders", [])],
        option_positions=[decode_option_position(p) for p in raw.get("option_positions", [])],
    )

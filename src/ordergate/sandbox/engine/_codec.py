"""The engine's records as JSON and back, exactly: an equity order with its terms and
executions, a tax lot, a crypto order and holding, an option order and position (each with
its contracts), a closed trade, and the open state of a whole book.

Amounts are ``Decimal`` strings (``str`` round-trips every digit), instants the store's one
time encoding (``ordergate.store.iso``, microseconds, UTC). A decoded record equals the one
encoded (tests check every field), so an engine reloaded from storage behaves as the one that
wrote it.
"""

from __future__ import annotations

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


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _undec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _when(value: datetime | None) -> str | None:
    return None if value is None else iso(value)


def _unwhen(value: str | None) -> datetime | None:
    return None if value is None else parse_iso(value)


def _listing(listing: EquityListing) -> Json:
    return {
        "symbol": listing.symbol,
        "instrument_id": listing.instrument_id,
        "name": listing.name,
        "simple_name": listing.simple_name,
        "tradeable": listing.tradeable,
        "fractional": listing.fractional,
        "all_day": listing.all_day,
        "country": listing.country,
        "state": listing.state,
    }


def _lots(pairs: list[tuple[str, Decimal]] | tuple[tuple[str, Decimal], ...] | None) -> Any:
    return None if pairs is None else [[lot_id, str(quantity)] for lot_id, quantity in pairs]


def _unlots(raw: list[list[str]] | None) -> list[tuple[str, Decimal]] | None:
    return None if raw is None else [(lot_id, Decimal(quantity)) for lot_id, quantity in raw]


def encode_order(order: EquityOrder) -> Json:
    terms = order.terms
    return {
        "id": order.id,
        "ref_id": order.ref_id,
        "terms": {
            "account_number": terms.account_number,
            "listing": _listing(terms.listing),
            "side": str(terms.side),
            "type": str(terms.type),
            "quantity": str(terms.quantity),
            "dollar_amount": _dec(terms.dollar_amount),
            "limit_price": _dec(terms.limit_price),
            "stop_price": _dec(terms.stop_price),
            "time_in_force": str(terms.time_in_force),
            "market_hours": str(terms.market_hours),
            "tax_lots": _lots(terms.tax_lots),
            "estimated_price": str(terms.estimated_price),
        },
        "created_at": iso(order.created_at),
        "confirm_at": iso(order.confirm_at),
        "expires_at": _when(order.expires_at),
        "state": str(order.state),
        "placed_agent": str(order.placed_agent),
        "updated_at": _when(order.updated_at),
        "next_check": _when(order.next_check),
        "executions": [
            [e.id, str(e.price), str(e.quantity), iso(e.timestamp), str(e.fees)]
            for e in order.executions
        ],
        "reject_reason": order.reject_reason,
        "doomed_reason": order.doomed_reason,
        "sequence": order.sequence,
        "triggered": order.triggered,
        "lots_left": _lots(order.lots_left),
    }


def decode_order(raw: Json) -> EquityOrder:
    terms = raw["terms"]
    tax_lots = _unlots(terms["tax_lots"])
    created_at = parse_iso(raw["created_at"])
    return EquityOrder(
        id=raw["id"],
        ref_id=raw["ref_id"],
        terms=OrderTerms(
            account_number=terms["account_number"],
            listing=EquityListing(**terms["listing"]),
            side=Side(terms["side"]),
            type=OrderType(terms["type"]),
            quantity=Decimal(terms["quantity"]),
            dollar_amount=_undec(terms["dollar_amount"]),
            limit_price=_undec(terms["limit_price"]),
            stop_price=_undec(terms["stop_price"]),
            time_in_force=TimeInForce(terms["time_in_force"]),
            market_hours=MarketHours(terms["market_hours"]),
            tax_lots=None if tax_lots is None else tuple(tax_lots),
            estimated_price=Decimal(terms["estimated_price"]),
        ),
        created_at=created_at,
        confirm_at=parse_iso(raw["confirm_at"]),
        expires_at=_unwhen(raw["expires_at"]),
        state=OrderState(raw["state"]),
        placed_agent=PlacedAgent(raw["placed_agent"]),
        updated_at=_unwhen(raw["updated_at"]),
        next_check=_unwhen(raw["next_check"]),
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
        reject_reason=raw["reject_reason"],
        doomed_reason=raw["doomed_reason"],
        sequence=raw["sequence"],
        triggered=raw["triggered"],
        lots_left=_unlots(raw["lots_left"]),
    )


def _encode_lot(lot: TaxLot) -> Json:
    return {
        "lot_id": lot.lot_id,
        "account_number": lot.account_number,
        "symbol": lot.symbol,
        "instrument_id": lot.instrument_id,
        "quantity": str(lot.quantity),
        "original_quantity": str(lot.original_quantity),
        "price": str(lot.price),
        "acquired_at": iso(lot.acquired_at),
        "order_id": lot.order_id,
        "execution_id": lot.execution_id,
    }


def _decode_lot(raw: Json) -> TaxLot:
    return TaxLot(
        lot_id=raw["lot_id"],
        account_number=raw["account_number"],
        symbol=raw["symbol"],
        instrument_id=raw["instrument_id"],
        quantity=Decimal(raw["quantity"]),
        original_quantity=Decimal(raw["original_quantity"]),
        price=Decimal(raw["price"]),
        acquired_at=parse_iso(raw["acquired_at"]),
        order_id=raw["order_id"],
        execution_id=raw["execution_id"],
    )


_PAIR_AMOUNTS = (
    "base_price",
    "quote_increment",
    "asset_increment",
    "min_order_size",
    "max_order_size",
)


def _pair(pair: CryptoPair) -> Json:
    raw: Json = {name: str(getattr(pair, name)) for name in _PAIR_AMOUNTS}
    raw.update(
        symbol=pair.symbol,
        name=pair.name,
        asset_code=pair.asset_code,
        spread_bp=pair.spread_bp,
        volatility=pair.volatility,
        quote_code=pair.quote_code,
        tradability=str(pair.tradability),
    )
    return raw


def _unpair(raw: Json) -> CryptoPair:
    return CryptoPair(
        symbol=raw["symbol"],
        name=raw["name"],
        asset_code=raw["asset_code"],
        spread_bp=raw["spread_bp"],
        volatility=raw["volatility"],
        quote_code=raw["quote_code"],
        tradability=Tradability(raw["tradability"]),
        **{name: Decimal(raw[name]) for name in _PAIR_AMOUNTS},
    )


def encode_crypto_order(order: CryptoOrder) -> Json:
    terms = order.terms
    return {
        "id": order.id,
        "ref_id": order.ref_id,
        "terms": {
            "account_number": terms.account_number,
            "rhs_account_number": terms.rhs_account_number,
            "pair": _pair(terms.pair),
            "side": str(terms.side),
            "type": str(terms.type),
            "quantity": str(terms.quantity),
            "dollar_amount": _dec(terms.dollar_amount),
            "limit_price": _dec(terms.limit_price),
            "stop_price": _dec(terms.stop_price),
            "time_in_force": str(terms.time_in_force),
            "estimated_price": str(terms.estimated_price),
        },
        "created_at": iso(order.created_at),
        "confirm_at": iso(order.confirm_at),
        "expires_at": _when(order.expires_at),
        "state": str(order.state),
        "placed_agent": str(order.placed_agent),
        "updated_at": _when(order.updated_at),
        "next_check": _when(order.next_check),
        "executions": [
            [e.id, str(e.price), str(e.quantity), str(e.notional), iso(e.timestamp)]
            for e in order.executions
        ],
        "reject_reason": order.reject_reason,
        "doomed_reason": order.doomed_reason,
        "sequence": order.sequence,
        "triggered": order.triggered,
    }


def decode_crypto_order(raw: Json) -> CryptoOrder:
    terms = raw["terms"]
    return CryptoOrder(
        id=raw["id"],
        ref_id=raw["ref_id"],
        terms=CryptoTerms(
            account_number=terms["account_number"],
            rhs_account_number=terms["rhs_account_number"],
            pair=_unpair(terms["pair"]),
            side=Side(terms["side"]),
            type=CryptoOrderType(terms["type"]),
            quantity=Decimal(terms["quantity"]),
            dollar_amount=_undec(terms["dollar_amount"]),
            limit_price=_undec(terms["limit_price"]),
            stop_price=_undec(terms["stop_price"]),
            time_in_force=CryptoTimeInForce(terms["time_in_force"]),
            estimated_price=Decimal(terms["estimated_price"]),
        ),
        created_at=parse_iso(raw["created_at"]),
        confirm_at=parse_iso(raw["confirm_at"]),
        expires_at=_unwhen(raw["expires_at"]),
        state=CryptoOrderState(raw["state"]),
        placed_agent=PlacedAgent(raw["placed_agent"]),
        updated_at=_unwhen(raw["updated_at"]),
        next_check=_unwhen(raw["next_check"]),
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
        reject_reason=raw["reject_reason"],
        doomed_reason=raw["doomed_reason"],
        sequence=raw["sequence"],
        triggered=raw["triggered"],
    )


def _encode_holding(holding: CryptoHolding) -> Json:
    return {
        "holding_id": holding.holding_id,
        "account_number": holding.account_number,
        "pair": _pair(holding.pair),
        "quantity": str(holding.quantity),
        "cost": str(holding.cost),
        "opened_at": iso(holding.opened_at),
        "updated_at": iso(holding.updated_at),
    }


def _decode_holding(raw: Json) -> CryptoHolding:
    return CryptoHolding(
        holding_id=raw["holding_id"],
        account_number=raw["account_number"],
        pair=_unpair(raw["pair"]),
        quantity=Decimal(raw["quantity"]),
        cost=Decimal(raw["cost"]),
        opened_at=parse_iso(raw["opened_at"]),
        updated_at=parse_iso(raw["updated_at"]),
    )


_TICKS = ("above_tick", "below_tick", "cutoff_price")


def _instrument(instrument: OptionInstrument) -> Json:
    return {
        "id": instrument.id,
        "chain_id": instrument.chain_id,
        "chain_symbol": instrument.chain_symbol,
        "type": str(instrument.type),
        "strike_price": str(instrument.strike_price),
        "expiration_date": instrument.expiration_date.isoformat(),
        "expires_at": iso(instrument.expires_at),
        "sellout_datetime": iso(instrument.sellout_datetime),
        "state": instrument.state,
        "tradability": str(instrument.tradability),
        "min_ticks": [str(getattr(instrument.min_ticks, name)) for name in _TICKS],
        "occ_symbol": instrument.occ_symbol,
        "trade_value_multiplier": str(instrument.trade_value_multiplier),
        "underlying_type": instrument.underlying_type,
    }


def _uninstrument(raw: Json) -> OptionInstrument:
    return OptionInstrument(
        id=raw["id"],
        chain_id=raw["chain_id"],
        chain_symbol=raw["chain_symbol"],
        type=OptionType(raw["type"]),
        strike_price=Decimal(raw["strike_price"]),
        expiration_date=date.fromisoformat(raw["expiration_date"]),
        expires_at=parse_iso(raw["expires_at"]),
        sellout_datetime=parse_iso(raw["sellout_datetime"]),
        state=raw["state"],
        tradability=Tradability(raw["tradability"]),
        min_ticks=MinTicks(*(Decimal(tick) for tick in raw["min_ticks"])),
        occ_symbol=raw["occ_symbol"],
        trade_value_multiplier=Decimal(raw["trade_value_multiplier"]),
        underlying_type=raw["underlying_type"],
    )


def encode_option_order(order: OptionOrder) -> Json:
    terms = order.terms
    return {
        "id": order.id,
        "ref_id": order.ref_id,
        "terms": {
            "account_number": terms.account_number,
            "legs": [
                [
                    _instrument(leg.instrument),
                    str(leg.side),
                    str(leg.position_effect),
                    leg.ratio_quantity,
                ]
                for leg in terms.legs
            ],
            "direction": str(terms.direction),
            "type": str(terms.type),
            "quantity": terms.quantity,
            "price": _dec(terms.price),
            "time_in_force": str(terms.time_in_force),
            "estimated_price": str(terms.estimated_price),
            "collateral": str(terms.collateral),
        },
        "leg_ids": list(order.leg_ids),
        "created_at": iso(order.created_at),
        "confirm_at": iso(order.confirm_at),
        "expires_at": iso(order.expires_at),
        "state": str(order.state),
        "placed_agent": str(order.placed_agent),
        "updated_at": _when(order.updated_at),
        "next_check": _when(order.next_check),
        "executions": [
            [[e.id, str(e.price), e.quantity, iso(e.timestamp)] for e in leg]
            for leg in order.executions
        ],
        "net_price": _dec(order.net_price),
        "reject_reason": order.reject_reason,
        "doomed_reason": order.doomed_reason,
        "sequence": order.sequence,
    }


def decode_option_order(raw: Json) -> OptionOrder:
    terms = raw["terms"]
    return OptionOrder(
        id=raw["id"],
        ref_id=raw["ref_id"],
        terms=OptionTerms(
            account_number=terms["account_number"],
            legs=tuple(
                OptionLeg(
                    instrument=_uninstrument(instrument),
                    side=Side(side),
                    position_effect=OptionPositionEffect(effect),
                    ratio_quantity=ratio,
                )
                for instrument, side, effect, ratio in terms["legs"]
            ),
            direction=OptionDirection(terms["direction"]),
            type=OptionOrderType(terms["type"]),
            quantity=terms["quantity"],
            price=_undec(terms["price"]),
            time_in_force=TimeInForce(terms["time_in_force"]),
            estimated_price=Decimal(terms["estimated_price"]),
            collateral=Decimal(terms["collateral"]),
        ),
        leg_ids=tuple(raw["leg_ids"]),
        created_at=parse_iso(raw["created_at"]),
        confirm_at=parse_iso(raw["confirm_at"]),
        expires_at=parse_iso(raw["expires_at"]),
        state=OrderState(raw["state"]),
        placed_agent=PlacedAgent(raw["placed_agent"]),
        updated_at=_unwhen(raw["updated_at"]),
        next_check=_unwhen(raw["next_check"]),
        executions=[
            [
                OptionExecution(
                    id=e_id, price=Decimal(price), quantity=quantity, timestamp=parse_iso(at)
                )
                for e_id, price, quantity, at in leg
            ]
            for leg in raw["executions"]
        ],
        net_price=_undec(raw["net_price"]),
        reject_reason=raw["reject_reason"],
        doomed_reason=raw["doomed_reason"],
        sequence=raw["sequence"],
    )


def encode_option_position(position: OptionPosition) -> Json:
    return {
        "position_id": position.position_id,
        "account_number": position.account_number,
        "instrument": _instrument(position.instrument),
        "quantity": position.quantity,
        "average_price": str(position.average_price),
        "opened_at": iso(position.opened_at),
        "updated_at": iso(position.updated_at),
        "opens": [[iso(at), contracts, str(price)] for at, contracts, price in position.opens],
    }


def decode_option_position(raw: Json) -> OptionPosition:
    return OptionPosition(
        position_id=raw["position_id"],
        account_number=raw["account_number"],
        instrument=_uninstrument(raw["instrument"]),
        quantity=raw["quantity"],
        average_price=Decimal(raw["average_price"]),
        opened_at=parse_iso(raw["opened_at"]),
        updated_at=parse_iso(raw["updated_at"]),
        opens=[(parse_iso(at), contracts, Decimal(price)) for at, contracts, price in raw["opens"]],
    )


_TRADE_AMOUNTS = ("quantity", "open_price", "close_price", "cost_basis", "proceeds", "fees")
_TRADE_TEXT = (
    "trade_id",
    "account_number",
    "asset_class",
    "symbol",
    "instrument_id",
    "open_lot_id",
    "order_id",
    "execution_id",
)


def encode_closed_trade(trade: ClosedTrade) -> Json:
    raw: Json = {name: getattr(trade, name) for name in _TRADE_TEXT}
    raw.update({name: str(getattr(trade, name)) for name in _TRADE_AMOUNTS})
    raw["opened_at"] = iso(trade.opened_at)
    raw["closed_at"] = iso(trade.closed_at)
    return raw


def decode_closed_trade(raw: Json) -> ClosedTrade:
    fields: Json = {name: raw[name] for name in _TRADE_TEXT}
    fields.update({name: Decimal(raw[name]) for name in _TRADE_AMOUNTS})
    return ClosedTrade(
        opened_at=parse_iso(raw["opened_at"]), closed_at=parse_iso(raw["closed_at"]), **fields
    )


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
        "lots": [_encode_lot(lot) for lot in state.lots],
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
        lots=[_decode_lot(lot) for lot in raw["lots"]],
        # A book stored before the engine carried crypto has none open.
        crypto_sequence=raw.get("crypto_sequence", 0),
        crypto_orders=[decode_crypto_order(order) for order in raw.get("crypto_orders", [])],
        crypto_holdings=[_decode_holding(h) for h in raw.get("crypto_holdings", [])],
        # A book stored before the engine carried options has none open.
        option_sequence=raw.get("option_sequence", 0),
        option_orders=[decode_option_order(order) for order in raw.get("option_orders", [])],
        option_positions=[decode_option_position(p) for p in raw.get("option_positions", [])],
    )

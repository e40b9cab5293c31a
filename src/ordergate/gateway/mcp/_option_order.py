"""The option order tools through the guard: ``place_option_order`` files and places an
``OptionProposal``; ``review_option_order`` checks that the filing could name it and
forwards the review (it places nothing).

An option order names its ``legs`` (each ``option_id``, ``side``, ``position_effect``,
``ratio_quantity``), ``quantity``, ``type`` (limit or market), ``price`` (the net limit),
``direction`` (debit or credit), ``time_in_force`` and ``account_number``; ``ref_id`` is the
agent's own key (``agent_key``, as for equities). Any other argument, in the order or in a
leg, is refused before anything is filed, naming it (``ARGUMENT_NOT_FILED``); so is a value
its field does not take (``INVALID_ORDER``, naming the field). Each leg's contract is read
from the venue by ``option_id``: an id its chains do not list is refused
``OPTION_NOT_IN_CHAIN`` before anything is filed (the guard checks it again on its own
read). Nothing the agent says of the strategy is read: there is no field for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, NoReturn, TypeVar
from uuid import UUID

from ordergate.core import (
    DecimalFieldError,
    OptionDirection,
    OptionPositionEffect,
    OrderType,
    Side,
    TimeInForce,
    parse_decimal,
)
from ordergate.execution import Guard, Outcome
from ordergate.gateway.mcp._answers import FORWARD_GUIDE, answer, order_result
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._order import filed_in_turn
from ordergate.gateway.mcp._proposal import AGENT_KEY, NotFiled, agent_key, shown_name
from ordergate.gateway.mcp._refusing import Failure, refuse, step
from ordergate.policy import ProposalError
from ordergate.policy.options import OptionContract, OptionLeg, OptionProposal

__all__ = ["option_order", "option_review"]

_E = TypeVar("_E", Side, OptionPositionEffect, OptionDirection, OrderType, TimeInForce)
_ORDER_FIELDS = (
    "account_number",
    "legs",
    "quantity",
    "type",
    "price",
    "direction",
    "time_in_force",
)
_LEG_FIELDS = ("option_id", "side", "position_effect", "ratio_quantity")
_NOT_ON_VENUE = (
    "This venue takes no option orders through the gateway (paper trading has no option "
    "desk yet). Nothing was filed or sent."
)
CHAIN_UNREADABLE = Failure(
    "reading option contracts",
    "UPSTREAM_UNAVAILABLE",
    "The gateway could not read the option contracts, so nothing was filed.",
)
ORDER_PATH_FAILED = Failure(
    "the option order path",
    "ORDER_PATH_FAILED",
    "The order path failed before it could answer. Read gate_record and your open orders "
    "before sending it again.",
)
REVIEW_FAILED = Failure("option review", broker=True)


def _not_filed(name: str, where: str = "") -> NoReturn:
    raise NotFiled(
        "ARGUMENT_NOT_FILED",
        f"The gateway sends only the fields it files ({', '.join(_ORDER_FIELDS)}; each leg "
        f"{', '.join(_LEG_FIELDS)}); {shown_name(name)}{where} is not one of them, so nothing "
        "was filed or sent.",
    )


def _invalid(field: str, why: str) -> NoReturn:
    raise NotFiled(
        "INVALID_ORDER",
        f"The order cannot be filed ({field}: {why}). Nothing was filed or sent.",
    )


def _choice(field: str, value: object, kind: type[_E]) -> _E:
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    _invalid(field, f"must be one of {', '.join(member.value for member in kind)}")


def _whole(field: str, value: object) -> int:
    if isinstance(value, bool):
        _invalid(field, "must be a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    _invalid(field, "must be a whole number")


def _price(value: object) -> Decimal:
    try:
        parsed = parse_decimal("price", value)
    except DecimalFieldError:
        _invalid("price", "must be a decimal string")
    if parsed is None:
        _invalid("price", "must be a decimal string")
    return parsed


def read_order(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The order's own fields (legs as plain mappings); ``NotFiled`` for anything else."""
    for name in arguments:
        if name not in _ORDER_FIELDS and name != AGENT_KEY:
            _not_filed(name)
    legs = arguments.get("legs")
    if not isinstance(legs, list) or not legs:
        _invalid("legs", "must be a list of 1 to 4 legs")
    for index, leg in enumerate(legs):
        if not isinstance(leg, dict):
            _invalid(f"legs[{index}]", "must be an object")
        for name in leg:
            if name not in _LEG_FIELDS:
                _not_filed(name, f" (in legs[{index}])")
        if not isinstance(leg.get("option_id"), str) or not leg["option_id"]:
            _invalid(f"legs[{index}].option_id", "must be the option's id")
    return dict(arguments)


def proposal_of(
    arguments: Mapping[str, Any], listed: Mapping[str, OptionContract]
) -> OptionProposal:
    """The ``OptionProposal`` the (read) arguments describe, each leg on the contract the
    venue lists; ``NotFiled`` otherwise."""
    legs = []
    for index, leg in enumerate(arguments["legs"]):
        contract = listed.get(leg["option_id"])
        if contract is None:
            raise NotFiled(
                "OPTION_NOT_IN_CHAIN",
                f"legs[{index}].option_id is not an option the venue lists, so nothing was "
                "filed or sent.",
            )
        try:
            legs.append(
                OptionLeg(
                    option_id=leg["option_id"],
                    contract=contract,
                    side=_choice(f"legs[{index}].side", leg.get("side"), Side),
                    position_effect=_choice(
                        f"legs[{index}].position_effect",
                        leg.get("position_effect"),
                        OptionPositionEffect,
                    ),
                    ratio=_whole(f"legs[{index}].ratio_quantity", leg.get("ratio_quantity", 1)),
                )
            )
        except ProposalError as error:
            _invalid(f"legs[{index}].{error.field}", error.reason)
    if "type" not in arguments:
        _invalid("type", "give the order's type (limit or market)")
    order_type = _choice("type", arguments["type"], OrderType)
    price = arguments.get("price")
    direction = arguments.get("direction")
    if direction is None and len(legs) == 1:
        direction = "debit" if legs[0].side is Side.BUY else "credit"
    try:
        return OptionProposal(
            legs=tuple(legs),
            quantity=_whole("quantity", arguments.get("quantity")),
            direction=_choice("direction", direction, OptionDirection),
            order_type=order_type,
            limit_price=None if price is None else _price(price),
            time_in_force=_choice(
                "time_in_force", arguments.get("time_in_force", "gfd"), TimeInForce
            ),
            account=arguments.get("account_number"),
        )
    except ProposalError as error:
        raise NotFiled(
            error.code.upper() if error.code != "invalid_proposal" else "INVALID_ORDER",
            f"The order cannot be filed ({error.field}: {error.reason}). Nothing was filed or "
            "sent.",
        ) from None


async def _proposal(call: Call, guard: Guard) -> OptionProposal:
    try:
        read = read_order(call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    lane = guard.venue.options
    if lane is None:
        refuse("OPTIONS_NOT_ON_PAPER", _NOT_ON_VENUE)
    ids = [leg["option_id"] for leg in read["legs"]]
    listed = await step(lane.contracts(ids), CHAIN_UNREADABLE)
    try:
        return proposal_of(read, listed)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)


async def option_order(call: Call) -> dict[str, Any]:
    """``place_option_order`` through the guard, under the principal's identity."""
    try:
        key = agent_key(call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    guard = await call.guard()
    proposal = await _proposal(call, guard)
    outcome = await filed_in_turn(
        call, guard, key, lambda: _submit(guard, proposal, call.identity, key)
    )
    return order_result(outcome, paper=guard.paper)


async def _submit(
    guard: Guard, proposal: OptionProposal, identity: str, key: UUID | None
) -> Outcome:
    try:
        return await guard.submit_option(proposal, identity=identity, agent_key=key)
    except ProposalError as error:
        refuse(
            "INVALID_ORDER",
            f"The order cannot be filed ({error.field}: {error.reason}). Nothing was filed "
            "or sent.",
        )


async def option_review(call: Call) -> dict[str, Any]:
    """``review_option_order``: refused as ``place_option_order`` would be for what the
    filing cannot name; otherwise the venue's review, forwarded (it places nothing)."""
    guard = await call.guard()
    await _proposal(call, guard)
    data = await step(
        call.desk.backend.forward(call.connection_id, call.name, call.arguments), REVIEW_FAILED
    )
    return answer(data, FORWARD_GUIDE)

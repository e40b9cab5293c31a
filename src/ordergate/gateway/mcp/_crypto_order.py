"""The crypto order tools through the guard: ``place_crypto_order`` files and places a
``CryptoProposal`` (``Guard.submit_crypto``); ``preview_crypto_order`` checks that the filing
could name the order before it is forwarded (it places nothing).

A crypto order names ``rhs_account_number``, ``symbol`` (the pair, ``BTC-USD``), ``side``,
``type``, ``quantity`` (units of the asset) or ``dollar_amount``, ``limit_price``,
``stop_price`` and ``time_in_force``; ``ref_id`` is the agent's own key (``agent_key``, as
for equities). Any other argument (``tax_lots`` included) is refused before anything is
filed, naming it (``ARGUMENT_NOT_FILED``); so is a value its field does not take
(``INVALID_ORDER``, naming the field: scientific notation, more places than any pair takes,
an unknown type). On paper both run on the venue's engine (its crypto desk); a venue with
no crypto lane refuses both (``CRYPTO_NOT_OFFERED``), nothing filed or sent. As for
equities, at most ``max_open`` unfinished filings per identity, counted in the account's
turn (a retry under a ``ref_id`` already filed answers its first filing, never
``TOO_MANY_OPEN``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NoReturn, TypeVar
from uuid import UUID

from ordergate.core import CryptoOrderType, CryptoTimeInForce, Side
from ordergate.execution import CryptoNotOffered, Guard, Outcome
from ordergate.gateway.mcp._answers import order_result
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._order import filed_in_turn
from ordergate.gateway.mcp._proposal import AGENT_KEY, NotFiled, agent_key, shown_name
from ordergate.gateway.mcp._read import forward
from ordergate.gateway.mcp._refusing import Failure, refuse, step
from ordergate.policy import CryptoProposal, ProposalError, parse_crypto_amount

__all__ = ["crypto_order", "crypto_preview", "crypto_proposal_from_arguments"]

_E = TypeVar("_E", bound=StrEnum)

_WIRE_NAMES: Mapping[str, str] = {
    "rhs_account_number": "account",
    "symbol": "pair",
    "side": "side",
    "type": "order_type",
    "quantity": "asset_quantity",
    "dollar_amount": "quote_amount",
    "limit_price": "limit_price",
    "stop_price": "stop_price",
    "time_in_force": "time_in_force",
}
"""Each argument the filing names, and the ``CryptoProposal`` field it becomes."""
_SHOWN = {field: name for name, field in _WIRE_NAMES.items()}
_REQUIRED = ("rhs_account_number", "symbol", "side", "type")
_AMOUNTS = ("quantity", "dollar_amount", "limit_price", "stop_price")
_ENUMS: Mapping[str, type[StrEnum]] = {
    "side": Side,
    "type": CryptoOrderType,
    "time_in_force": CryptoTimeInForce,
}

ORDER_PATH_FAILED = Failure(
    "the crypto order path",
    "ORDER_PATH_FAILED",
    "The order path failed before it could answer. Read gate_record and your open orders "
    "before sending it again.",
)
VENUE_UNREADABLE = Failure(
    "checking the crypto venue", message="The gateway could not reach its venue; nothing was sent."
)


def _invalid(name: str, why: str) -> NoReturn:
    raise NotFiled(
        "INVALID_ORDER", f"The order cannot be filed ({name}: {why}). Nothing was filed or sent."
    )


def _choice(name: str, value: object, kind: type[_E]) -> _E:
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    _invalid(name, f"must be one of {', '.join(member.value for member in kind)}")


def crypto_proposal_from_arguments(arguments: Mapping[str, Any]) -> CryptoProposal:
    """The ``CryptoProposal`` these arguments describe (``ref_id`` aside: see
    ``agent_key``); ``NotFiled`` when they name anything a filing cannot, or do not
    describe an order."""
    for name in arguments:
        if name not in _WIRE_NAMES and name != AGENT_KEY:
            raise NotFiled(
                "ARGUMENT_NOT_FILED",
                f"The gateway sends only the fields it files ({', '.join(_WIRE_NAMES)}); "
                f"{shown_name(name)} is not one of them, so nothing was filed or sent.",
            )
    for name in _REQUIRED:
        if arguments.get(name) is None:
            raise NotFiled("MISSING_ARGUMENT", f"`{name}` is required. Nothing was filed.")
    fields: dict[str, Any] = {}
    for name, value in arguments.items():
        if name == AGENT_KEY or value is None:
            continue
        field = _WIRE_NAMES[name]
        if name in _AMOUNTS:
            try:
                fields[field] = parse_crypto_amount(name, value)
            except ProposalError as error:
                _invalid(name, error.reason)
        elif name in _ENUMS:
            fields[field] = _choice(name, value, _ENUMS[name])
        elif not isinstance(value, str):
            _invalid(name, "must be text")
        else:
            fields[field] = value
    try:
        return CryptoProposal(**fields)
    except ProposalError as error:
        _invalid(_SHOWN.get(error.field, error.field), error.reason)


def _not_offered(error: CryptoNotOffered) -> NoReturn:
    if error.code == "crypto_not_on_paper":
        refuse(
            "CRYPTO_NOT_ON_PAPER",
            "Paper trading has no crypto desk: crypto orders are refused in paper mode. "
            "Nothing was filed or sent.",
        )
    refuse("CRYPTO_NOT_OFFERED", "This venue trades no crypto. Nothing was filed or sent.")


async def crypto_order(call: Call) -> dict[str, Any]:
    try:
        proposal = crypto_proposal_from_arguments(call.arguments)
        key = agent_key(call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    guard = await call.guard()
    if guard.venue.crypto is None:
        _not_offered(CryptoNotOffered(paper=guard.paper))
    outcome = await filed_in_turn(
        call, guard, key, lambda: _submit(guard, proposal, call.identity, key)
    )
    return order_result(outcome, paper=guard.paper)


async def _submit(
    guard: Guard, proposal: CryptoProposal, identity: str, key: UUID | None
) -> Outcome:
    try:
        return await guard.submit_crypto(proposal, identity=identity, agent_key=key)
    except CryptoNotOffered as error:
        _not_offered(error)
    except ProposalError as error:
        _invalid(_SHOWN.get(error.field, error.field), error.reason)


async def crypto_preview(call: Call) -> Any:
    """A preview the filing could name is forwarded (it places nothing); anything else is
    refused as ``place_crypto_order`` would refuse it."""
    try:
        crypto_proposal_from_arguments(call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    guard = await step(call.guard(), VENUE_UNREADABLE)
    if guard.venue.crypto is None:
        _not_offered(CryptoNotOffered(paper=guard.paper))
    return await forward(call)

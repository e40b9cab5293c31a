"""``replace_option_order`` through the guard: a new filing checked in full, never forwarded.

The replace names the option order it replaces (``order_id``, the venue's id, read in its
canonical spelling) and any of the order's own fields (``legs``, ``quantity``, ``type``,
``price``, ``direction``, ``time_in_force``, ``account_number``; ``ref_id`` is the agent's
key); a field it leaves out keeps the replaced filing's value (a market replacement drops the
inherited price). Anything else is refused before anything is filed (``ARGUMENT_NOT_FILED``),
as for ``place_option_order``, and so is what that tool would refuse.

A connection replaces only an option order it filed on this account (``NOT_YOUR_ORDER``
otherwise, the cancel rules' sentence), and needs ``options.cancel`` besides the tool's own
``options.place``. Then ``Guard.replace_option``: the replacement is filed and checked at
stage A while the replaced order still holds its reservation — a replace that raises the
premium past a cap is refused and nothing is sent — and only once it passes is the replaced
order cancelled; the replacement is placed when the venue confirms that cancel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from ordergate.execution import OPTION_KIND, Guard, Outcome, proposal_of_option
from ordergate.gateway.mcp._answers import order_result
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._cancel import NOT_YOURS, ORDER_ID, RECORD_UNREADABLE, filed_by
from ordergate.gateway.mcp._option_order import CHAIN_UNREADABLE, proposal_of, read_order
from ordergate.gateway.mcp._order import filed_in_turn
from ordergate.gateway.mcp._profiles import refusal_sentence
from ordergate.gateway.mcp._proposal import AGENT_KEY, NotFiled, agent_key
from ordergate.gateway.mcp._refusing import refuse, step
from ordergate.ledger import FilingRecord
from ordergate.policy import ProposalError
from ordergate.policy.options import OptionProposal
from ordergate.profiles import Permission
from ordergate.store import blocking
from ordergate.venues import canonical_order_id

__all__ = ["option_replace"]


def _as_arguments(proposal: OptionProposal, account: str) -> dict[str, Any]:
    """The replaced filing's order as ``place_option_order`` arguments."""
    arguments: dict[str, Any] = {
        "account_number": account,
        "legs": [
            {
                "option_id": leg.option_id,
                "side": leg.side.value,
                "position_effect": leg.position_effect.value,
                "ratio_quantity": leg.ratio,
            }
            for leg in proposal.legs
        ],
        "quantity": proposal.quantity,
        "type": proposal.order_type.value,
        "direction": proposal.direction.value,
        "time_in_force": proposal.time_in_force.value,
    }
    if proposal.limit_price is not None:
        arguments["price"] = str(proposal.limit_price)
    return arguments


def merged(replaced: FilingRecord, given: Mapping[str, Any]) -> dict[str, Any]:
    """The replacement's arguments: the replaced filing's order with ``given`` over it
    (``order_id`` and ``ref_id`` aside); ``NotFiled`` for what the filing cannot name."""
    fields = {k: v for k, v in given.items() if k not in (ORDER_ID, AGENT_KEY)}
    try:
        base = _as_arguments(proposal_of_option(replaced.terms), replaced.account)
    except ProposalError:
        raise NotFiled(
            "INVALID_ORDER", "The replaced order's filing cannot be read. Nothing was sent."
        ) from None
    if fields.get("type") == "market" and "price" not in fields:
        base.pop("price", None)
    return read_order({**base, **fields})


async def option_replace(call: Call) -> dict[str, Any]:
    """``replace_option_order`` under the principal's identity (see the module docstring)."""
    if call.profile is None or not call.profile.allows(Permission.OPTIONS_CANCEL):
        if call.profile is not None:
            refuse("PROFILE_REFUSED", refusal_sentence(call.profile, Permission.OPTIONS_CANCEL))
        refuse("PROFILE_REFUSED", "this connection has no profile on this gateway")
    try:
        key = agent_key(call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    order_id = canonical_order_id(call.arguments.get(ORDER_ID))
    if order_id is None:
        refuse(
            "INVALID_ORDER_ID",
            "order_id must be the replaced option order's id (a UUID). Nothing was sent.",
        )
    guard = await step(call.guard(), RECORD_UNREADABLE)
    replaced = await step(blocking(filed_by, guard.ledger, order_id), RECORD_UNREADABLE)
    if (
        replaced is None
        or replaced.identity != call.identity
        or replaced.account != guard.account
        or replaced.kind != OPTION_KIND
    ):
        refuse("NOT_YOUR_ORDER", NOT_YOURS)
    proposal = await _proposal(call, guard, replaced)
    outcome = await filed_in_turn(
        call, guard, key, lambda: _replace(guard, replaced, proposal, call.identity, key)
    )
    return order_result(outcome, paper=guard.paper)


async def _proposal(call: Call, guard: Guard, replaced: FilingRecord) -> OptionProposal:
    try:
        read = merged(replaced, call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    lane = guard.venue.options
    if lane is None:
        refuse("OPTIONS_NOT_ON_PAPER", "This venue takes no option orders. Nothing was sent.")
    ids = [leg["option_id"] for leg in read["legs"]]
    listed = await step(lane.contracts(ids), CHAIN_UNREADABLE)
    try:
        return proposal_of(read, listed)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)


async def _replace(
    guard: Guard,
    replaced: FilingRecord,
    proposal: OptionProposal,
    identity: str,
    key: UUID | None,
) -> Outcome:
    try:
        return await guard.replace_option(replaced.id, proposal, identity=identity, agent_key=key)
    except ProposalError as error:
        code = "ORDER_NOT_OPEN" if error.field == ORDER_ID else "INVALID_ORDER"
        refuse(
            code,
            f"The replace cannot be filed ({error.field}: {error.reason}). Nothing was filed "
            "or sent.",
        )

"""Cancels: a connection cancels only the orders it filed.

A cancel of an order or an exercise (a tool that needs ``orders.cancel``, or
``crypto.cancel`` for a crypto order) names the order by
``order_id``, read in its canonical spelling (``canonical_order_id``: an upper-case, braced,
``urn:uuid:`` or dashless UUID is the same order; anything else is refused,
``INVALID_ORDER_ID``). Then, looked up on the record:

- an order this principal filed goes through the guard (paper or live, read back and
  reconciled);
- an order the gateway did not file — placed in the Robinhood app, or an option, crypto or
  exercise the gateway never places — or one another connection filed is refused
  (``NOT_YOUR_ORDER``, the same sentence for both, so nothing is learned of other
  connections) and nothing is sent, unless the profile grants ``orders.cancel_any``: then an
  order the gateway filed still goes through the guard, and any other is forwarded with its
  canonical id;
- an order filed for another account is never this connection's to cancel.

A record that cannot be read refuses (nothing is sent). Deleting one of the person's own list
items (an alert, a watchlist, a scan: ``*.write``) is not an order: it is forwarded as given.
Every cancel is journalled under the principal's identity with its outcome — forwarded,
refused, or the broker's failure code.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from ordergate.execution import Guard, Outcome
from ordergate.gateway.mcp._answers import FORWARD_GUIDE, answer
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._profiles import needs
from ordergate.gateway.mcp._refusing import Failure, Refused, best_effort, refuse, step
from ordergate.ledger import AccountBusyError, FilingRecord, FilingStatus, Ledger, LedgerError
from ordergate.profiles import Permission
from ordergate.store import blocking
from ordergate.venues import canonical_order_id

__all__ = ["NOT_YOURS", "ORDER_ID", "RECORD_UNREADABLE", "cancel", "filed_by"]

ORDER_ID = "order_id"
NOT_YOURS = (
    "That order was not filed by this connection; a connection cancels only its own orders. "
    "Nothing was sent."
)
RECORD_UNREADABLE = Failure(
    "looking up a cancelled order",
    message="The gateway could not read its record, so nothing was sent.",
)
GUARD_CANCEL_FAILED = Failure("cancel of a filing", broker=True, cancel=True, level=logging.INFO)
FORWARD_FAILED = Failure("cancel", broker=True, cancel=True, level=logging.INFO)
_ORDER_CANCELS = frozenset(
    {Permission.ORDERS_CANCEL, Permission.OPTIONS_CANCEL, Permission.CRYPTO_CANCEL}
)
_CANCEL_TOOK = frozenset({FilingStatus.CANCELLED, FilingStatus.DENIED})
"""Ended by the cancel: the order cancelled, or its pending approval denied."""


@dataclass(frozen=True, slots=True)
class _Filed:
    """An order on the record: its filing, and whose and which account's it is."""

    filing_id: UUID
    identity: str
    account: str


def _filed(ledger: Ledger, order_id: str) -> _Filed | None:
    try:
        ref_id = ledger.orders.by_broker_id(order_id).ref_id
        record = ledger.filing(ref_id)
    except LedgerError:
        return None  # not an order the gateway filed
    return _Filed(ref_id, record.identity, record.account)


def filed_by(ledger: Ledger, order_id: str) -> FilingRecord | None:
    """The filing the gateway placed as the venue's ``order_id`` (``None``: not one it
    filed)."""
    try:
        return ledger.filing(ledger.orders.by_broker_id(order_id).ref_id)
    except LedgerError:
        return None


def _takes_order_id(descriptor: Mapping[str, Any]) -> bool:
    schema = descriptor.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return isinstance(properties, Mapping) and ORDER_ID in properties


async def cancel(call: Call) -> dict[str, Any]:
    descriptor = call.descriptor or {}
    order_tool = call.listing.order_tool if call.listing is not None else None
    if needs(descriptor, order_tool) not in _ORDER_CANCELS:
        return await _forward(call, call.arguments, order_id=None)
    any_order = call.profile is not None and call.profile.allows(Permission.ORDERS_CANCEL_ANY)
    if ORDER_ID not in call.arguments and not _takes_order_id(descriptor):
        # An exercise (``option_id``) or another cancel the gateway never files.
        if not any_order:
            await _record(call, "refused", None)
            refuse("NOT_YOUR_ORDER", NOT_YOURS)
        return await _forward(call, call.arguments, order_id=None)
    order_id = canonical_order_id(call.arguments.get(ORDER_ID))
    if order_id is None:
        await _record(call, "invalid_order_id", None)
        refuse("INVALID_ORDER_ID", "order_id must be the order's id (a UUID). Nothing was sent.")
    guard = await step(call.guard(), RECORD_UNREADABLE)
    filed = await step(blocking(_filed, guard.ledger, order_id), RECORD_UNREADABLE)
    mine = filed is not None and filed.identity == call.identity
    if filed is not None and filed.account == guard.account and (mine or any_order):
        return await _through_guard(call, guard, filed.filing_id)
    if filed is None and any_order:
        return await _forward(call, {**call.arguments, ORDER_ID: order_id}, order_id=order_id)
    await _record(call, "refused", order_id)
    refuse("NOT_YOUR_ORDER", NOT_YOURS)


async def _through_guard(call: Call, guard: Guard, filing_id: UUID) -> dict[str, Any]:
    """An order the gateway filed is cancelled through the guard (which journals it).

    The answer keeps the cancel tool's own output schema (``data`` is ``{accepted}`` and
    nothing else): ``accepted`` when the order is cancelled, its approval denied, or the
    cancel asked of a still-working order; not when it had already ended otherwise (filled,
    refused, expired). The filing and where it stands are in the guide."""
    outcome = await step(_cancel(guard, filing_id, call.identity), GUARD_CANCEL_FAILED)
    status = outcome.status
    accepted = status in _CANCEL_TOOK or not status.terminal
    guide = (
        f"Cancelled through the ordergate gateway: filing {outcome.filing_id} is {status.value}. "
        f"{outcome.message}"
    )
    return answer({"accepted": accepted}, guide)


async def _cancel(guard: Guard, filing_id: UUID, identity: str) -> Outcome:
    try:
        return await guard.cancel(filing_id, identity=identity)
    except AccountBusyError as busy:
        refuse(
            "ACCOUNT_BUSY",
            f"Another order on this account held its turn for over {busy.bound_s:g} s. "
            "Nothing was sent; send the cancel again.",
        )


async def _forward(
    call: Call, arguments: dict[str, Any], *, order_id: str | None
) -> dict[str, Any]:
    """Sent to the broker as given (the id canonical) and journalled, whatever the answer."""
    sent = call.desk.backend.forward(call.connection_id, call.name, arguments)
    try:
        data = await step(sent, FORWARD_FAILED)
    except Refused as refused:  # the broker's failure is the answer; it is journalled too
        await _record(call, refused.code.lower(), order_id)
        raise
    await _record(call, "forwarded", order_id)
    return answer(data, FORWARD_GUIDE)


async def _record(call: Call, outcome: str, order_id: str | None) -> None:
    detail: dict[str, Any] = {"tool": call.name, "outcome": outcome}
    if order_id is not None:
        detail["order_id"] = order_id
    forwarded = outcome not in ("refused", "invalid_order_id")
    why = f"cancel forwarded to the broker ({outcome})" if forwarded else f"cancel {outcome}"

    def append(ledger: Ledger) -> None:
        filing_id = None
        if order_id is not None:
            try:
                filing_id = ledger.orders.by_broker_id(order_id).ref_id
            except LedgerError:
                filing_id = None  # not an order the gateway filed
        ledger.journal.append(
            identity=call.identity, kind="cancel", why=why, filing_id=filing_id, detail=detail
        )

    async def write() -> None:
        ledger = (await call.desk.backend.guard(call.connection_id)).ledger
        await blocking(append, ledger)

    # The answer must reach the agent even when the journal cannot be written.
    await best_effort(write(), "recording a cancel")

"""The equity order tool: the call becomes a ``Proposal`` of the filing's own fields and runs
the guard under the principal's identity.

At most ``max_open`` unfinished filings per identity at a time: the count and the order it
allows run in the account's turn (``Guard.turn``, which the guard's own order path takes
again, reentrantly), one order at a time per account across every process and replica on
the ledger, so no cap read before the filing can be raced by another order. A turn that does
not come within its bound refuses the call (``ACCOUNT_BUSY``), nothing filed. The answer
carries the filing id, the status, the reasons and the guard's fixed sentence (an unanswered
order says to read open orders before sending again). An order under a ``ref_id`` the identity
already filed under answers that filing (or ``ref_id_reused``) before the open count, so a
retry is never ``TOO_MANY_OPEN``; a held one answers as a held order does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NoReturn
from uuid import UUID

from ordergate.execution import Guard, Outcome
from ordergate.gateway.mcp._answers import order_result
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._held_answers import REFUSED
from ordergate.gateway.mcp._proposal import NotFiled, agent_key, proposal_from_arguments
from ordergate.gateway.mcp._record import open_count
from ordergate.gateway.mcp._refusing import Failure, refuse, step
from ordergate.ledger import AccountBusyError, FilingStatus
from ordergate.mcpserve import INVALID_PARAMS, RpcError
from ordergate.policy import Proposal, ProposalError
from ordergate.store import blocking

__all__ = [
    "RECORD_UNREADABLE",
    "answered",
    "filed_in_turn",
    "order",
    "refuse_busy",
    "refuse_over_open_cap",
    "resume",
]

RECORD_UNREADABLE = Failure(
    "counting open filings", message="The gateway could not read its record, so nothing was filed."
)
ORDER_PATH_FAILED = Failure(
    "the order path",
    "ORDER_PATH_FAILED",
    "The order path failed before it could answer. Read gate_record and your open orders "
    "before sending it again.",
)


async def resume(call: Call) -> dict[str, Any]:
    """A stateless client's retry of a call held for the owner (its ``requestState``)."""
    held = call.desk.held
    if held is None:
        raise RpcError(INVALID_PARAMS, REFUSED)
    return await held.resumed(
        await call.guard(),
        call.request_state,
        owner=call.principal.session_owner,
        tool=call.name,
        arguments=call.arguments,
    )


async def order(call: Call) -> dict[str, Any]:
    if call.request_state is not None:  # a retry of an order held for the owner
        return await resume(call)
    descriptor = call.descriptor or {}
    schema = descriptor.get("inputSchema")
    try:
        proposal = proposal_from_arguments(
            call.arguments, schema if isinstance(schema, dict) else {}
        )
        key = agent_key(call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    guard = await call.guard()
    outcome = await filed_in_turn(
        call, guard, key, lambda: _submit(guard, proposal, call.identity, key)
    )
    return await answered(call, guard, outcome)


async def refuse_over_open_cap(call: Call, guard: Guard) -> None:
    """Refuse (``TOO_MANY_OPEN``, nothing filed) when ``call``'s identity already has
    ``max_open`` unfinished filings; run in the account's turn, with the order it allows."""
    max_open = call.desk.max_open
    count = await step(
        blocking(open_count, guard.ledger, guard.account, call.identity), RECORD_UNREADABLE
    )
    if count >= max_open:
        refuse(
            "TOO_MANY_OPEN",
            f"You already have {count} orders open through the gateway (at most "
            f"{max_open}); wait for one to finish or cancel one. Nothing was filed.",
        )


async def filed_in_turn(
    call: Call, guard: Guard, key: UUID | None, submit: Callable[[], Awaitable[Outcome]]
) -> Outcome:
    """``submit`` in the account's turn, under the identity's open cap: an order sent again
    under a ``ref_id`` already filed (``key``) is no new order, so the cap does not count it
    and the guard answers its first filing; ``ACCOUNT_BUSY`` when the turn does not come."""
    try:
        async with guard.turn():
            retry = False
            if key is not None:
                filed = await step(
                    blocking(guard.ledger.keyed_filing, call.identity, key), RECORD_UNREADABLE
                )
                retry = filed is not None
            if not retry:
                await refuse_over_open_cap(call, guard)
            return await step(submit(), ORDER_PATH_FAILED)
    except AccountBusyError as busy:
        refuse_busy(busy)


def refuse_busy(busy: AccountBusyError) -> NoReturn:
    """The account's turn did not come within its bound: nothing was filed (``ACCOUNT_BUSY``)."""
    refuse(
        "ACCOUNT_BUSY",
        f"Another order on this account held its turn for over {busy.bound_s:g} s. "
        "Nothing was filed; send it again.",
    )


async def answered(call: Call, guard: Guard, outcome: Outcome) -> dict[str, Any]:
    """The answer to ``outcome``: a filing held for the owner answers a client that takes URL
    elicitations with the owner's console page (``_held_answers``), any other as its filing."""
    held = call.desk.held
    answer = order_result(outcome, paper=guard.paper)
    peer = call.peer
    if (
        outcome.status is not FilingStatus.PENDING_APPROVAL
        or held is None
        or outcome.approval_id is None
        or not peer.declares("elicitation", "url")
    ):
        return answer
    if not peer.stateless:  # the handshake era: elicitation/create asked on the answer's way
        return held.asking(answer, outcome.approval_id)
    return await held.held(
        guard,
        outcome,
        owner=call.principal.session_owner,
        tool=call.name,
        arguments=call.arguments,
    )


async def _submit(guard: Guard, proposal: Proposal, identity: str, key: UUID | None) -> Outcome:
    try:
        return await guard.submit(proposal, identity=identity, agent_key=key)
    except ProposalError as error:
        _invalid(error)


def _invalid(error: ProposalError) -> NoReturn:
    refuse(
        "INVALID_ORDER",
        f"The order cannot be filed ({error.field}: {error.reason}). Nothing was filed or sent.",
    )

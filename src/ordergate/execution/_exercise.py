"""An option exercise (or the withdrawal of one) is the account owner's act, filed and held.

::

    request ─▶ contract read ─▶ filed ─▶ held for the owner ─▶ approved ─▶ sent once
                 │ not listed                     │ denied / expired
                 ▼                                ▼
              refused                         nothing sent

- **Filed as named.** The filing (``kind = "option_exercise"``) holds the act (``exercise``
  or ``cancel_exercise``), the account, the ``option_id``, the contract the venue lists
  under it (underlying, expiry, strike, call/put) and, for an exercise, the quantity in
  contracts; nothing else. An id the venue does not list is refused
  ``option_not_in_chain``; a venue with no option lane, or paper (the paper book's engine
  carries no exercise, and an exercise must never reach the real account), refuses
  ``options_not_on_paper``. Every refusal is filed; nothing is sent.
- **Always held.** Every accepted request is held for the owner's approval whatever the
  policy or the profile says (no profile can grant it): the approval machinery of an order
  held for approval (``Guard.ask_approval``), so the owner decides with the owner code, the
  CLI (``ordergate approve``) or the console's approvals page.
- **Not while paused.** A request asked while the rail or the asking connection is paused is
  filed refused ``paused``; an approved one whose rail or connection was paused since is
  ended refused ``paused``, nothing sent.
- **Sent once, only on approval.** ``Guard.approve`` claims the approval once (a second
  approval of the same request is ``approval_decided``) and sends the act: an exercise under
  the filing's id as its ``ref_id``. The venue's answer ends the filing: ``filled`` (the
  venue took the request; its exercise ids recorded), ``rejected`` (it refused), or
  ``unanswered``, which the reconciler never resends (a person settles it). Denied or
  expired, nothing is sent.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ordergate.execution._outcome import BROKER_REFUSED, Outcome
from ordergate.ledger import PAUSED, Decision, Filing, FilingRecord, FilingStatus
from ordergate.policy import ProposalError
from ordergate.store import blocking
from ordergate.venues import BrokerRefusal, NoAnswer

if TYPE_CHECKING:
    from ordergate.execution._guard import Guard

__all__ = ["CANCEL_EXERCISE", "EXERCISE", "EXERCISE_KIND", "file_exercise", "send_exercise"]

EXERCISE_KIND = "option_exercise"
EXERCISE = "exercise"
CANCEL_EXERCISE = "cancel_exercise"
_ACTS = (EXERCISE, CANCEL_EXERCISE)
_NOT_ON_PAPER = "options_not_on_paper"
_NOT_IN_CHAIN = "option_not_in_chain"


async def file_exercise(
    guard: Guard,
    *,
    act: str,
    option_id: str,
    quantity: int | None,
    identity: str,
    agent_key: UUID | None = None,
) -> Outcome:
    """File the owner's act ``act`` on ``option_id`` (``quantity`` contracts for an exercise)
    asked by ``identity`` and hold it for the owner (see the module docstring). Call it in
    the account's turn. Under an ``agent_key`` ``identity`` already filed under, that
    filing's standing (nothing filed again). ``ProposalError`` naming the field for a
    request that cannot be filed (nothing filed)."""
    if agent_key is not None:
        earlier = await blocking(guard.ledger.keyed_filing, identity, agent_key)
        if earlier is not None:
            return await guard.standing(earlier.id)
    if act not in _ACTS:
        raise ProposalError("act", f"one of {', '.join(_ACTS)}")
    if not isinstance(option_id, str) or not option_id:
        raise ProposalError("option_id", "give the option's id")
    if act == EXERCISE and (
        isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1
    ):
        raise ProposalError("quantity", "a whole number of contracts, at least 1")
    terms: dict[str, Any] = {"act": act, "account": guard.account, "option_id": option_id}
    if act == EXERCISE:
        terms["quantity"] = quantity
    lane = guard.venue.options
    reasons: tuple[str, ...] = ()
    if await blocking(_paused, guard, identity):
        reasons = (PAUSED,)
    elif lane is None or guard.venue.paper:
        reasons = (_NOT_ON_PAPER,)
    else:
        listed = await lane.contracts([option_id])
        contract = listed.get(option_id)
        if contract is None:
            reasons = (_NOT_IN_CHAIN,)
        else:
            terms["contract"] = {
                "underlying": contract.underlying,
                "expiry": contract.expiry.isoformat(),
                "strike": str(contract.strike),
                "type": contract.kind.value,
            }
    filing = Filing(
        identity=identity,
        terms=terms,
        account=guard.account,
        kind=EXERCISE_KIND,
        decision=Decision.REFUSE if reasons else Decision.ACCEPT,
        reasons=reasons,
        agent_key=agent_key,
    )
    result = await blocking(
        guard.ledger.file_and_reserve, filing, notional=Decimal(0), caps=guard.caps
    )
    record = result.record
    if not result.accepted:
        return Outcome(record.id, FilingStatus.REFUSED, record.reasons)
    return await guard.ask_approval(record)


def _paused(guard: Guard, identity: str) -> bool:
    """Whether the rail, or the connection ``identity`` names, is paused (blocking)."""
    return guard.ledger.decision_reads(guard.account, filer=identity).pause.paused


async def send_exercise(guard: Guard, record: FilingRecord) -> Outcome:
    """Send the approved act ``record`` files, once (``Guard.approve`` claimed its approval),
    and end the filing with the venue's answer."""
    lane = guard.venue.options
    terms = record.terms
    if lane is None or guard.venue.paper:  # pragma: no cover - filed refused there
        return await guard.end_filing(record, FilingStatus.FAILED, (_NOT_ON_PAPER,))
    if await blocking(_paused, guard, record.identity):
        # Paused since it was filed (the rail, or the connection that asked): nothing is sent.
        return await guard.end_filing(record, FilingStatus.REFUSED, (PAUSED,))
    try:
        if terms["act"] == EXERCISE:
            sent: tuple[str, ...] = (
                await lane.exercise(
                    record.account, terms["option_id"], int(terms["quantity"]), ref_id=record.id
                ),
            )
        else:
            sent = await lane.cancel_exercise(record.account, terms["option_id"])
    except BrokerRefusal as refusal:
        return await guard.end_filing(
            record, FilingStatus.REJECTED, (BROKER_REFUSED,), broker_code=refusal.code
        )
    except NoAnswer:
        await blocking(
            guard.ledger.record_status, record.id, FilingStatus.UNANSWERED, detail={"sent": True}
        )
        return Outcome(record.id, FilingStatus.UNANSWERED)
    await blocking(
        guard.ledger.record_status,
        record.id,
        FilingStatus.FILLED,
        detail={"exercise_ids": list(sent)},
    )
    return Outcome(record.id, FilingStatus.FILLED)

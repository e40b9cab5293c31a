"""The option order path: an ``OptionProposal`` through the same chokepoint as an equity order.

::

    proposal ─▶ contracts read ─▶ file + stage A + reserve ─▶ review + stage B ─▶ place
                  │ not in chain      │ refused                  │ refused        │ no answer
                  ▼                   ▼                          ▼                ▼
               refused             refused                   released        unanswered

- **Filed as named.** The filing (``kind = "option_order"``) holds every leg — its
  ``option_id`` and the contract the venue lists under it (underlying, expiry, strike,
  call/put), side, position effect, ratio — the quantity, type, net limit, direction, time in
  force and account, and nothing else (``option_terms``). Each leg's contract is read from
  the venue by ``option_id`` first: an id its chains do not list is refused
  ``option_not_in_chain``, a contract other than the one the proposal names
  ``option_contract_mismatch``; a venue with no option lane (the older paper book)
  refuses ``options_not_on_paper``. Every refusal is filed; nothing is sent.
- **Stage A** prices the order from each leg's quote (``estimate_option_terms``: a limit at
  its net limit, a market order at the far side) and, in the filing's transaction, reserves
  its premium in dollars (``premium_hold``: per share × 100 × quantity, a debit and a credit
  alike) against the account's rolling caps, the equities' daily dollar budget included —
  the ledger refuses a cap a concurrent filing has just closed.
- **Stage B** runs on ``review_option_order``'s priced terms (premium, fees, collateral,
  buying-power effect, the venue's alerts) before any place; the reservation is repriced
  to the reviewed premium atomically with the caps. The venue's failed checks refuse
  ``broker_checks_failed``.
- **Placed only as filed**, ``ref_id`` = the filing's id; the placement and what the venue
  reported of it are recorded as an equity order's are, and the reconciler follows it
  (``OptionLane.poll`` / ``lookup``), so the reservation ends at the premium that filled.

- **A replace** (``Guard.replace_option``) is a cancel and a new filing checked in full: the
  replacement is filed and decided at stage A while the replaced order still holds its
  reservation (so a replace that raises the premium past a cap is refused, and nothing is
  sent); only then is the replaced order cancelled at the venue, its reservation released
  when the venue confirms the cancel, and the replacement carried on (held for the owner, or
  reviewed and placed). A cancel the venue does not confirm (the order filled first, or no
  answer) ends the replacement refused ``option_replace_not_cancelled``, nothing placed.

All of it runs in the account's turn (``Guard.submit_option`` takes it).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING, Any
from uuid import UUID

import anyio

from ordergate.core import (
    OrderType,
    Side,
    to_wire,
)
from ordergate.execution._budgets import budget_of
from ordergate.execution._figures import option_figures
from ordergate.execution._option_terms import (
    OPTION_KIND,
    option_terms,
    option_ticket_of,
    proposal_of_option,
)
from ordergate.execution._outcome import (
    BROKER_CHECKS_FAILED,
    BROKER_REFUSED,
    REVIEW_UNANSWERED,
    Outcome,
)
from ordergate.execution._placing import unrecorded
from ordergate.execution._world import Filer, Seen
from ordergate.ledger import AgentKeyUsedError, Decision, Filing, FilingRecord, FilingStatus
from ordergate.policy import Proposal, ProposalError, Stage
from ordergate.policy.options import (
    HeldOption,
    OptionContract,
    OptionDecision,
    OptionHoldings,
    OptionProposal,
    OptionQuote,
    OptionState,
    OptionTerms,
    estimate_option_terms,
    evaluate_options,
)
from ordergate.store import blocking
from ordergate.venues import (
    AccountView,
    BrokerRefusal,
    NoAnswer,
    OptionLane,
    OptionReview,
    OptionTicket,
    option_account,
)

if TYPE_CHECKING:
    from ordergate.execution._guard import Guard

__all__ = [
    "OPTIONS_NOT_ON_PAPER",
    "OPTION_CONTRACT_MISMATCH",
    "OPTION_KIND",
    "OPTION_NOT_IN_CHAIN",
    "OPTION_REPLACE_NOT_CANCELLED",
    "option_terms",
    "option_ticket_of",
    "premium_hold",
    "proposal_of_option",
    "review_and_place",
    "submit_option",
]

OPTIONS_NOT_ON_PAPER = "options_not_on_paper"
OPTION_NOT_IN_CHAIN = "option_not_in_chain"
OPTION_CONTRACT_MISMATCH = "option_contract_mismatch"
OPTION_REPLACE_NOT_CANCELLED = "option_replace_not_cancelled"
_CANCEL_TOOK = frozenset({FilingStatus.CANCELLED, FilingStatus.DENIED})
_CENT = Decimal("0.01")
_ZERO = Decimal(0)
_SHARES = 100


def premium_hold(proposal: OptionProposal, terms: OptionTerms) -> Decimal:
    """What the order holds against the rolling caps: its premium in dollars, paid or
    received (per share × 100 × quantity), rounded up to the cent; zero when unpriced."""
    premium = terms.premium
    if premium is None:
        return _ZERO
    dollars = premium * _SHARES * proposal.quantity
    return dollars.quantize(_CENT, rounding=ROUND_CEILING)


def _reasons_of_contracts(
    proposal: OptionProposal, listed: Mapping[str, OptionContract]
) -> tuple[str, ...]:
    reasons: list[str] = []
    for leg in proposal.legs:
        contract = listed.get(leg.option_id)
        if contract is None:
            reasons.append(OPTION_NOT_IN_CHAIN)
        elif contract != leg.contract:
            reasons.append(OPTION_CONTRACT_MISMATCH)
    return tuple(dict.fromkeys(reasons))


@dataclass(frozen=True, slots=True)
class _Market:
    """What an option decision read of the venue before its worker thread."""

    listed: Mapping[str, OptionContract]  # the legs' and the held options' contracts
    quotes: Mapping[str, OptionQuote]
    held: Mapping[str, Decimal] | None  # the underlying's contracts held (``OptionLane.held``)
    seen: Seen  # the equity lane's view of the account (``World``): its shares, cash too


def _carrier(proposal: OptionProposal, account: str) -> Proposal:
    """The equity proposal the account's side of an option decision is read for (``World``):
    the underlying, so its shares, the open orders and the account's caps are read as an
    equity order on it would read them. Never filed or sent."""
    return Proposal(
        symbol=proposal.underlying,
        side=Side.BUY,
        quantity=Decimal(1),
        order_type=OrderType.MARKET,
        account=account,
    )


async def _read_market(guard: Guard, lane: OptionLane, proposal: OptionProposal) -> _Market:
    """The legs' contracts and quotes, the account's option positions on the underlying and
    its equity view, read at once; then the contracts of the options it holds there. The
    equity view is the one account read: the holdings' shares and cash are taken from it
    (``_state``), never read a second time."""
    ids = [leg.option_id for leg in proposal.legs]
    read: dict[str, Any] = {}

    async def contracts() -> None:
        try:
            read["listed"] = await lane.contracts(ids)
        except NoAnswer:
            read["listed"] = {}

    async def quotes() -> None:
        read["quotes"] = await lane.quotes(ids)

    async def held() -> None:
        read["held"] = await lane.held(guard.account, proposal.underlying)

    async def seen() -> None:
        read["seen"] = await guard.world.seen(_carrier(proposal, guard.account))

    async with anyio.create_task_group() as group:
        for step in (contracts, quotes, held, seen):
            group.start_soon(step)
    listed: dict[str, OptionContract] = dict(read["listed"])
    contracts_held: Mapping[str, Decimal] | None = read["held"]
    unknown = [i for i in contracts_held or {} if i not in listed]
    if unknown:
        # A holding whose contract is unknown is left out of the holdings.
        with contextlib.suppress(NoAnswer):
            listed.update(await lane.contracts(unknown))
    return _Market(listed, read["quotes"], contracts_held, read["seen"])


def _holdings(market: _Market, view: AccountView, underlying: str) -> OptionHoldings | None:
    """The policy's view of what the account holds of the underlying (``None``: unknown):
    the contracts ``market`` read, the shares and cash of the decision's ``view``."""
    account = option_account(view, underlying, market.held)
    if account.contracts is None or account.shares is None:
        return None
    held = {
        option_id: HeldOption(market.listed[option_id], int(quantity))
        for option_id, quantity in account.contracts.items()
        if option_id in market.listed
    }
    return OptionHoldings(shares=account.shares, options=held, cash=account.cash)


async def submit_option(
    guard: Guard,
    proposal: OptionProposal,
    *,
    identity: str,
    agent_key: UUID | None = None,
    replacing: FilingRecord | None = None,
) -> Outcome:
    """The option order path under ``identity`` (the caller holds the account's turn); with
    ``replacing``, the replacement of that open option filing (``_cancel_replaced``).
    Raises ``ProposalError`` for a proposal naming another account (nothing is filed)."""
    if proposal.account is not None and proposal.account != guard.account:
        raise ProposalError("account", "this guard trades one account only")
    if agent_key is not None:
        earlier = await _keyed(guard, proposal, identity, agent_key)
        if earlier is not None:
            return earlier
    lane = guard.venue.options
    if lane is None:
        record = await blocking(_refuse, guard, proposal, identity, agent_key)
        return Outcome(record.id, FilingStatus.REFUSED, record.reasons, Stage.ESTIMATE)
    market = await _read_market(guard, lane, proposal)
    try:
        decision, record, figures = await blocking(
            _estimate_and_file, guard, proposal, identity, market, agent_key
        )
    except AgentKeyUsedError:
        # Filed under the key meanwhile (another process, between the look and the filing).
        assert agent_key is not None
        earlier = await _keyed(guard, proposal, identity, agent_key)
        if earlier is None:
            raise
        return earlier
    if record.reasons:
        return Outcome(
            record.id, FilingStatus.REFUSED, record.reasons, Stage.ESTIMATE, figures=figures
        )
    if replacing is not None:
        ended = await _cancel_replaced(guard, record, replacing, identity)
        if ended is not None:
            return ended
    if decision.requires_approval:
        return await guard.ask_approval(record)
    return await review_and_place(guard, record, market)


async def _cancel_replaced(
    guard: Guard, record: FilingRecord, replaced: FilingRecord, identity: str
) -> Outcome | None:
    """The replaced order cancelled once its replacement ``record`` passed stage A: ``None``
    when the venue confirmed the cancel (or its pending approval was denied; the reconciler
    released its reservation), else the replacement ended refused with nothing placed."""
    await blocking(
        guard.ledger.journal.append,
        identity=identity,
        kind="replace",
        why=f"replaces filing {replaced.id}",
        filing_id=record.id,
        detail={"replaces": str(replaced.id)},
    )
    try:
        cancelled = await guard.cancel(replaced.id, identity=identity)
    except (BrokerRefusal, NoAnswer):
        cancelled = None
    if cancelled is not None and cancelled.status in _CANCEL_TOOK:
        return None
    return await guard.end_filing(
        record, FilingStatus.REFUSED, (OPTION_REPLACE_NOT_CANCELLED,), stage=Stage.ESTIMATE
    )


async def _keyed(
    guard: Guard, proposal: OptionProposal, identity: str, agent_key: UUID
) -> Outcome | None:
    """``Guard.keyed_as`` for an option order: its terms as an option filing names them."""
    return await guard.keyed_as(
        identity, agent_key, lambda _: option_terms(proposal, guard.account)
    )


def _refuse(
    guard: Guard, proposal: OptionProposal, identity: str, agent_key: UUID | None
) -> FilingRecord:
    """A venue without an option lane: the order filed refused, nothing reserved."""
    filing = _filing(guard, proposal, identity, (OPTIONS_NOT_ON_PAPER,), agent_key)
    with guard.ledger.transaction(guard.account):
        record = guard.ledger.file_and_reserve(filing, notional=_ZERO, caps=guard.caps).record
        _journal(guard, record, identity, None, None, record.reasons, _ZERO)
    return record


def _filing(
    guard: Guard,
    proposal: OptionProposal,
    identity: str,
    reasons: tuple[str, ...],
    agent_key: UUID | None,
) -> Filing:
    return Filing(
        identity=identity,
        terms=option_terms(proposal, guard.account),
        account=guard.account,
        kind=OPTION_KIND,
        decision=Decision.REFUSE if reasons else Decision.ACCEPT,
        reasons=reasons,
        agent_key=agent_key,
    )


def _state(
    guard: Guard,
    proposal: OptionProposal,
    market: _Market,
    quotes: Mapping[str, OptionQuote],
    *,
    own: FilingRecord | None = None,
    filer: Filer | None = None,
) -> OptionState:
    """Blocking: the decision's state — the account as the equity engine reads it, merged
    with the record (``World.with_record``), the legs' quotes, the holdings and the rolling
    24 h option premium (less this filing's own, at stage B)."""
    world = guard.world.with_record(
        _carrier(proposal, guard.account),
        market.seen,
        own=own,
        filer=filer,
        budget=budget_of(guard.policy, OPTION_KIND),
    )
    premium = guard.ledger.rolling_spend(guard.account, kind=OPTION_KIND).notional
    if own is not None:
        premium -= own.notional
    holdings = _holdings(market, world.view, proposal.underlying)
    return OptionState(account=world.state, quotes=quotes, holdings=holdings, premium_24h=premium)


def _estimate_and_file(
    guard: Guard,
    proposal: OptionProposal,
    identity: str,
    market: _Market,
    agent_key: UUID | None,
) -> tuple[OptionDecision, FilingRecord, tuple[str, ...]]:
    """Stage A (blocking): the contracts checked against the venue's, the policy on the
    estimate from the legs' quotes, then the filing, its reservation of the premium against
    the caps (refused by the ledger when a concurrent filing closed one) and its journal
    entry, in one transaction committed before anything is sent. Also the numbers behind a
    refusal (``option_figures``)."""
    policy = guard.policy
    terms = option_terms(proposal, guard.account)
    filer = Filer(identity, terms, timedelta(seconds=policy.duplicate_window_s))
    state = _state(guard, proposal, market, market.quotes, filer=filer)
    estimate = estimate_option_terms(proposal, market.quotes)
    decision = evaluate_options(proposal, estimate, state, policy, Stage.ESTIMATE)
    reasons = (*_reasons_of_contracts(proposal, market.listed), *decision.codes)
    hold = premium_hold(proposal, estimate) if not reasons else _ZERO
    filing = _filing(guard, proposal, identity, tuple(dict.fromkeys(reasons)), agent_key)
    with guard.ledger.transaction(guard.account):
        record = guard.ledger.file_and_reserve(filing, notional=hold, caps=guard.caps).record
        _journal(guard, record, identity, decision, estimate, record.reasons, hold)
    figures = option_figures(decision, proposal, estimate, state, policy) if reasons else ()
    return decision, record, figures


def _journal(
    guard: Guard,
    record: FilingRecord,
    identity: str,
    decision: OptionDecision | None,
    terms: OptionTerms | None,
    reasons: tuple[str, ...],
    hold: Decimal,
    stage: Stage = Stage.ESTIMATE,
) -> None:
    """The decision's journal entry: what it was decided on (strategy, max loss, premium,
    and the priced terms) and why."""
    if decision is not None:
        stage = decision.stage
    detail: dict[str, Any] = {
        "stage": stage.value,
        "allowed": not reasons,
        "reasons": list(reasons),
        "hold_usd": to_wire(hold),
    }
    if decision is not None:
        detail["strategy"] = decision.strategy.value
        detail["max_loss"] = _wire(decision.max_loss)
        detail["premium_usd"] = _wire(decision.premium_usd)
        detail["requires_approval"] = decision.requires_approval
    if terms is not None:
        detail["premium"] = _wire(terms.premium)
        detail["fees"] = to_wire(terms.fees)
        detail["collateral"] = _wire(terms.collateral)
        detail["buying_power_effect"] = _wire(terms.buying_power_effect)
        detail["alerts"] = list(terms.alerts)
    why = "allowed" if not reasons else "refused: " + ", ".join(reasons)
    guard.ledger.journal.append(
        identity=identity,
        kind=f"policy_{stage.value}",
        why=why,
        filing_id=record.id,
        detail=detail,
    )


def _wire(value: Decimal | None) -> str | None:
    return None if value is None else to_wire(value)


async def review_and_place(
    guard: Guard, record: FilingRecord, market: _Market | None = None
) -> Outcome:
    """Review, stage B, place a filed option order (the caller holds the account's turn):
    right after stage A (``market``: what it read of the contracts and holdings, kept; the
    account's view is read again while the review is under way, the quotes are the
    review's), or once the owner approved it (everything read again)."""
    lane = guard.venue.options
    if lane is None:  # a filing approved after the venue changed: nothing is sent
        return await guard.end_filing(record, FilingStatus.REFUSED, (OPTIONS_NOT_ON_PAPER,))
    ticket = option_ticket_of(record)
    reviewed: dict[str, Any] = {}

    async def review_it() -> None:
        try:
            reviewed["review"] = await lane.review(ticket)
        except (NoAnswer, BrokerRefusal) as error:  # raised again below, outside the group
            reviewed["error"] = error

    async def read_again() -> None:
        if market is None:
            reviewed["market"] = await _read_market(guard, lane, ticket.proposal)
        else:
            seen = await guard.world.seen(_carrier(ticket.proposal, guard.account))
            reviewed["market"] = dataclasses.replace(market, seen=seen)

    async with anyio.create_task_group() as group:
        group.start_soon(review_it)
        group.start_soon(read_again)
    market = reviewed["market"]
    try:
        if "error" in reviewed:
            raise reviewed["error"]
        review: OptionReview = reviewed["review"]
    except NoAnswer:
        return await guard.end_filing(record, FilingStatus.FAILED, (REVIEW_UNANSWERED,))
    except BrokerRefusal as refusal:
        return await guard.end_filing(
            record, FilingStatus.REJECTED, (BROKER_REFUSED,), broker_code=refusal.code
        )
    refused, status, figures = await blocking(_check_review, guard, record, ticket, review, market)
    if refused:
        return await guard.end_filing(
            record, FilingStatus.REFUSED, refused, stage=Stage.REVIEW, figures=figures
        )
    if status.terminal:
        return Outcome(record.id, status)
    return await guard.placed(record, unrecorded(lane.place(ticket)))


def _check_review(
    guard: Guard,
    record: FilingRecord,
    ticket: OptionTicket,
    review: OptionReview,
    market: _Market,
) -> tuple[tuple[str, ...], FilingStatus, tuple[str, ...]]:
    """Stage B (blocking): the policy on the reviewed terms and a fresh state (the review's
    quotes where it gave them), journalled; when it passes, the reservation repriced to the
    reviewed premium against the caps, in one transaction. Why it refused (nothing when it
    passed), the filing's status, and the refusal's numbers."""
    ledger = guard.ledger
    proposal = ticket.proposal
    quotes = {**market.quotes, **review.quotes}
    state = _state(guard, proposal, market, quotes, own=record)
    decision = evaluate_options(proposal, review.terms, state, guard.policy, Stage.REVIEW)
    reasons = decision.codes
    if review.checks_passed is False:
        reasons = (*reasons, BROKER_CHECKS_FAILED)
    hold = premium_hold(proposal, review.terms)
    with ledger.transaction(guard.account, events=True):
        _journal(guard, record, record.identity, decision, review.terms, reasons, hold)
        if reasons:
            figures = option_figures(decision, proposal, review.terms, state, guard.policy)
            return reasons, record.status, figures
        over = ledger.reprice(record.id, hold, caps=guard.caps)
        if over is not None:
            return (over,), record.status, ()
        return (), ledger.filing(record.id).status, ()

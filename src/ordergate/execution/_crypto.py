"""The guard's crypto lane: ``Guard.submit_crypto`` and what ``approve`` and ``cancel`` do
with a crypto filing. The order path is the equity one (``_guard``'s docstring), on the
venue's ``CryptoLane`` (``venue.crypto``):

1. The lane is chosen once, before filing (``CryptoLanes.choose`` on ``crypto.route``; none
   available: refused ``crypto_lane_unavailable``, on the record, nothing sent). The lane
   reads the account's side (``CryptoLane.read``: cash, buying power, the pair's holding,
   equity with the crypto in it, the open crypto orders, the best bid and ask; a lane
   trading another account than the order's refuses ``crypto_account_mismatch``, on the
   record, nothing sent) and its pairs (``pairs``: the minimum size and increments). The
   order is evaluated on terms estimated at the far side of the best bid and ask
   (``estimate_crypto_terms``, stage A, ``evaluate_crypto``) with the same record reads as
   equities (spend, pace, pause, marks: ``World.with_account``), and filed (``kind``
   ``crypto_order``, the lane named in its terms) with its worst-case hold
   (``crypto_hold_for``) reserved against the rolling caps (``crypto_limits``: the lower
   daily cap of ``[limits]`` and ``[crypto]``), in one transaction, before anything is sent.
2. An approval is asked and carried on as for equities.
3. The lane reviews the filed terms (MCP ``preview_crypto_order``, REST ``estimated_price``);
   stage B runs on the review's terms and quote and a fresh read, and reprices the hold.
4. Exactly the filed order is placed on the lane the filing names, with the filing's id as
   its ``ref_id`` / ``client_order_id``; what the lane answered is recorded as for equities
   and the reconciler follows it on that lane to its end, the hold corrected to the fills.

A venue without a crypto lane (the paper book) refuses before anything is filed
(``CryptoNotOffered``: ``crypto_not_on_paper`` on paper).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import timedelta
from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING, Any
from uuid import UUID

import anyio

from ordergate.core import OrdergateError, Side
from ordergate.execution._budgets import budget_of, ledger_caps
from ordergate.execution._crypto_terms import (
    CRYPTO_KIND,
    crypto_filing_terms,
    crypto_ticket_of,
)
from ordergate.execution._figures import refusal_figures
from ordergate.execution._hold import MARKET_BUY_COLLAR
from ordergate.execution._outcome import (
    BROKER_CHECKS_FAILED,
    BROKER_REFUSED,
    REVIEW_UNANSWERED,
    Outcome,
)
from ordergate.execution._placing import Reviewed, unrecorded
from ordergate.execution._world import Filer
from ordergate.ledger import (
    AgentKeyUsedError,
    Decision,
    Filing,
    FilingRecord,
    FilingResult,
    FilingStatus,
)
from ordergate.policy import (
    AccountState,
    CryptoPairRules,
    CryptoProposal,
    CryptoQuote,
    CryptoTerms,
    PolicyConfig,
    ProposalError,
    Quote,
    ReasonCode,
    Stage,
    Terms,
    crypto_limits,
    estimate_crypto_terms,
    evaluate_crypto,
)
from ordergate.policy import Decision as PolicyDecision
from ordergate.store import blocking
from ordergate.venues import (
    AccountView,
    BrokerRefusal,
    CryptoLane,
    CryptoLanes,
    CryptoReview,
    CryptoTicket,
    CryptoView,
    NoAnswer,
)

if TYPE_CHECKING:
    from ordergate.execution._guard import Guard

__all__ = [
    "CRYPTO_NOT_OFFERED",
    "CRYPTO_NOT_ON_PAPER",
    "CryptoNotOffered",
    "crypto_hold_for",
    "review_and_place_crypto",
    "submit_crypto",
]

CRYPTO_NOT_ON_PAPER = "crypto_not_on_paper"
CRYPTO_NOT_OFFERED = "crypto_not_offered"
CRYPTO_NOT_ENABLED = ReasonCode.CRYPTO_NOT_ENABLED.value
_CENT = Decimal("0.01")
_ZERO = Decimal(0)
# The keys a refusal's figures name for the caps ``[crypto]`` sets in place of ``[limits]``.
_CRYPTO_KEYS = ("max_order_usd", "max_position_pct", "price_collar_bps")


class CryptoNotOffered(OrdergateError):
    """The venue has no crypto lane: nothing was filed or sent. ``code`` is
    ``crypto_not_on_paper`` on paper, else ``crypto_not_offered``."""

    def __init__(self, *, paper: bool) -> None:
        self.code = CRYPTO_NOT_ON_PAPER if paper else CRYPTO_NOT_OFFERED
        super().__init__(
            "paper trading has no crypto desk: crypto orders are refused on paper"
            if paper
            else "this venue trades no crypto"
        )


def crypto_hold_for(
    proposal: CryptoProposal, terms: CryptoTerms, decision: PolicyDecision, policy: PolicyConfig
) -> Decimal:
    """What a crypto order holds against the rolling spend while it works, as ``hold_for``
    holds an equity order: a dollar amount its amount; a limit buy its units at the limit; a
    market buy its units at the far side (a stop buy's stop when higher) plus the venue's 5 %
    market buy collar; any other its estimated notional; a refused or exempt reducing order
    nothing. Rounded up to the cent."""
    if not decision.allowed or (decision.reduces_position and policy.reducing_exempt):
        return _ZERO
    if proposal.quote_amount is not None:
        return proposal.quote_amount
    quantity = proposal.asset_quantity
    assert quantity is not None
    if proposal.side is Side.BUY:
        if proposal.limit_price is not None:
            return _cents(quantity * proposal.limit_price)
        if terms.price is not None:
            return _cents(quantity * terms.price * (1 + MARKET_BUY_COLLAR))
    return _ZERO if terms.notional is None else _cents(terms.notional)


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_CEILING)


def _lanes(guard: Guard) -> CryptoLanes:
    lanes = guard.venue.crypto
    if lanes is None:
        raise CryptoNotOffered(paper=guard.venue.paper)
    return lanes


def _as_terms(terms: CryptoTerms) -> Terms:
    """The crypto terms under the names the journal and the figures read."""
    return Terms(
        price=terms.price, notional=terms.notional, quantity=terms.quantity, fees=terms.fees
    )


def _account_view(view: CryptoView, pair: str, quote: CryptoQuote | None = None) -> AccountView:
    """The crypto lane's read as the account view the record is merged with (``quote``: a
    fresher one, the review's)."""
    chosen = view.quote if quote is None else quote
    return AccountView(
        equity=view.equity,
        cash=view.cash,
        buying_power=view.buying_power,
        positions=None if view.holding is None else {pair: view.holding},
        open_orders=view.open_orders,
        quote=None if chosen is None else Quote(pair, chosen.bid, chosen.ask, None, chosen.at),
        notes=view.notes,
    )


def _figures(
    reasons: tuple[str, ...],
    state: AccountState,
    proposal: CryptoProposal,
    terms: CryptoTerms,
    policy: PolicyConfig,
) -> tuple[str, ...]:
    """``refusal_figures`` on the caps the order was weighed on, each naming its key:
    ``crypto.*`` for what ``[crypto]`` sets."""
    limits = crypto_limits(policy)
    quantity = proposal.asset_quantity if proposal.asset_quantity is not None else terms.quantity
    figures = refusal_figures(
        reasons, state, quantity, limits, _as_terms(terms), proposal.limit_price
    )
    crypto = policy.crypto
    renamed = list(_CRYPTO_KEYS)
    if (
        crypto is not None
        and crypto.max_daily_usd is not None
        and (crypto.max_daily_usd < policy.max_daily_usd)
    ):
        renamed.append("max_daily_usd")
    said: list[str] = []
    for figure in figures:
        for key in renamed:
            figure = figure.replace(f"limits.{key}", f"crypto.{key}")
        said.append(figure)
    return tuple(said)


async def _read(
    guard: Guard, lane: CryptoLane, account: str, pair: str
) -> tuple[CryptoView, CryptoPairRules | None]:
    """The account's side and the pair's rules, read at once (the rules ``None`` when the
    venue cannot list its pairs: the policy refuses ``missing_data:pair_rules``).

    The view's ``equity`` is the account's as the equity lane reads it (the brokerage's
    total value, its crypto holdings included): the one figure the breakers, the marks and
    ``max_position_pct`` weigh whichever lane or asset an order is on, so a crypto account
    read on its own (the REST rail's) never stands in for the whole account."""
    found: dict[str, Any] = {}

    async def equity() -> None:
        found["equity"] = await guard.venue.equity.account.read(guard.account, None)

    async def pairs() -> None:
        try:
            found["pairs"] = await lane.pairs()
        except NoAnswer:
            found["pairs"] = {}

    async def read() -> None:
        try:
            found["view"] = await lane.read(account, pair)
        except BrokerRefusal as refusal:
            found["refused"] = refusal

    async with anyio.create_task_group() as group:
        group.start_soon(pairs)
        group.start_soon(read)
        group.start_soon(equity)
    refused: BrokerRefusal | None = found.get("refused")
    if refused is not None:
        raise refused
    listed: Mapping[str, CryptoPairRules] = found["pairs"]
    whole: AccountView = found["equity"]
    view: CryptoView = found["view"]
    view = dataclasses.replace(view, equity=whole.equity, notes=(*view.notes, *whole.notes))
    return view, listed.get(pair)


async def submit_crypto(
    guard: Guard, proposal: CryptoProposal, *, identity: str, agent_key: UUID | None
) -> Outcome:
    """``Guard.submit_crypto``'s order path, in the account's turn the guard holds."""
    lanes = _lanes(guard)
    if proposal.account is None:
        raise ProposalError("account", "name the crypto account (rhs_account_number)")
    if agent_key is not None:
        # The key answers whichever lane its filing went to, before any lane is chosen.
        earlier = await _keyed(guard, proposal, identity, agent_key)
        if earlier is not None:
            return earlier
    crypto = guard.policy.crypto
    if crypto is None:
        return await _refuse(guard, proposal, identity, agent_key, (CRYPTO_NOT_ENABLED,))
    try:
        lane = await lanes.choose(crypto.route.value)
    except BrokerRefusal as refusal:
        return await _refuse(guard, proposal, identity, agent_key, (refusal.code,))
    filed = crypto_filing_terms(proposal, guard.account, lane.name)
    try:
        view, rules = await _read(guard, lane, proposal.account, proposal.pair)
    except BrokerRefusal as refusal:
        # The lane trades another account (crypto_account_mismatch): nothing to weigh.
        return await _refuse(guard, proposal, identity, agent_key, (refusal.code,), lane.name)
    try:
        decision, result, state, terms = await blocking(
            _estimate_and_file, guard, view, rules, proposal, filed, identity, agent_key
        )
    except AgentKeyUsedError:
        assert agent_key is not None
        earlier = await _keyed(guard, proposal, identity, agent_key)
        if earlier is None:
            raise
        return earlier
    record = result.record
    if not result.accepted:
        await guard._tripped(record.reasons)
        return Outcome(
            record.id,
            FilingStatus.REFUSED,
            record.reasons,
            Stage.ESTIMATE,
            figures=_figures(record.reasons, state, proposal, terms, guard.policy),
        )
    if decision.requires_approval:
        return await guard._ask_approval(record)
    return await review_and_place_crypto(guard, record, identity)


async def _refuse(
    guard: Guard,
    proposal: CryptoProposal,
    identity: str,
    agent_key: UUID | None,
    reasons: tuple[str, ...],
    lane: str | None = None,
) -> Outcome:
    """File ``proposal`` refused for ``reasons`` found before the account was weighed (no
    ``[crypto]``, no lane to route to, or a ``lane`` trading another account), its journal
    entry with it; nothing is sent."""
    filed = crypto_filing_terms(proposal, guard.account, lane)
    filing = Filing(
        identity=identity,
        terms=filed,
        account=guard.account,
        kind=CRYPTO_KIND,
        decision=Decision.REFUSE,
        reasons=reasons,
        agent_key=agent_key,
    )
    policy = guard.policy
    caps = ledger_caps(policy, crypto_limits(policy).max_daily_usd)

    def file() -> FilingRecord:
        ledger = guard.ledger
        with ledger.transaction(guard.account):
            record = ledger.file_and_reserve(filing, notional=_ZERO, caps=caps).record
            ledger.journal.append(
                identity=identity,
                kind="policy_estimate",
                why="refused: " + ", ".join(reasons),
                filing_id=record.id,
                detail={"stage": Stage.ESTIMATE.value, "allowed": False, "reasons": list(reasons)},
            )
        return record

    record = await blocking(file)
    return Outcome(record.id, FilingStatus.REFUSED, record.reasons, Stage.ESTIMATE)


async def _keyed(
    guard: Guard, proposal: CryptoProposal, identity: str, agent_key: UUID
) -> Outcome | None:
    """``Guard.keyed_as`` for a crypto order: its terms as filed on the lane its filing
    went to."""
    return await guard.keyed_as(
        identity,
        agent_key,
        lambda record: crypto_filing_terms(proposal, guard.account, record.terms.get("lane")),
    )


def _estimate_and_file(
    guard: Guard,
    view: CryptoView,
    rules: CryptoPairRules | None,
    proposal: CryptoProposal,
    filed: dict[str, Any],
    identity: str,
    agent_key: UUID | None,
) -> tuple[PolicyDecision, FilingResult, AccountState, CryptoTerms]:
    """Stage A (blocking): the record read beside the lane's view, the policy on the terms
    estimated at the far side of the quote, then the filing, its reservation and the
    journal entry of its decision, committed together before anything is sent."""
    policy = guard.policy
    limits = crypto_limits(policy)
    window = timedelta(seconds=policy.duplicate_window_s)
    state = guard._world.with_account(
        proposal.pair,
        _account_view(view, proposal.pair),
        filer=Filer(identity, filed, window),
        losses_of=guard._losses_of(identity),
        budget=budget_of(policy, CRYPTO_KIND),
    )
    terms = estimate_crypto_terms(proposal, view.quote)
    decision = evaluate_crypto(proposal, terms, state, policy, Stage.ESTIMATE, rules)
    filing = Filing(
        identity=identity,
        terms=filed,
        account=guard.account,
        kind=CRYPTO_KIND,
        decision=Decision.ACCEPT if decision.allowed else Decision.REFUSE,
        reasons=decision.codes,
        agent_key=agent_key,
    )
    hold = crypto_hold_for(proposal, terms, decision, policy)
    caps = ledger_caps(policy, limits.max_daily_usd)
    extra: dict[str, Any] = {"lane": filed["lane"]}
    if agent_key is not None:
        extra["agent_key"] = str(agent_key)
    ledger = guard.ledger
    with ledger.transaction(guard.account):
        result = ledger.file_and_reserve(filing, notional=hold, caps=caps)
        record = result.record
        guard._journal(record, identity, decision, _as_terms(terms), record.reasons, extra)
    return decision, result, state, terms


async def review_and_place_crypto(
    guard: Guard, record: FilingRecord, identity: str, *, approved: Decimal | None = None
) -> Outcome:
    """Review, stage B, place, on the lane the filing names (``approved``: the estimate the
    owner approved, for an order carried on from its approval)."""
    try:
        ticket = crypto_ticket_of(record)
        lane = guard.reconciler.crypto_lane(record)
    except ProposalError:
        return await guard._end(record, FilingStatus.FAILED, (REVIEW_UNANSWERED,))
    found: dict[str, Any] = {}

    async def review() -> None:
        try:
            found["review"] = await lane.review(ticket)
        except (NoAnswer, BrokerRefusal) as error:
            found["error"] = error

    async def read() -> None:
        try:
            found["read"] = await _read(guard, lane, ticket.account, ticket.proposal.pair)
        except BrokerRefusal as refusal:
            found.setdefault("error", refusal)

    async with anyio.create_task_group() as group:
        group.start_soon(review)
        group.start_soon(read)
    error = found.get("error")
    if isinstance(error, BrokerRefusal):
        return await guard._end(
            record, FilingStatus.REJECTED, (BROKER_REFUSED,), broker_code=error.code
        )
    if error is not None:
        return await guard._end(record, FilingStatus.FAILED, (REVIEW_UNANSWERED,))
    reviewed: CryptoReview = found["review"]
    view, rules = found["read"]
    checked = await blocking(
        _check_review, guard, record, identity, ticket, reviewed, view, rules, approved
    )
    stopped = await guard.after_review(record, checked)
    if stopped is not None:
        return stopped
    return await guard.placed(record, unrecorded(lane.place(ticket)))


def _check_review(
    guard: Guard,
    record: FilingRecord,
    identity: str,
    ticket: CryptoTicket,
    review: CryptoReview,
    view: CryptoView,
    rules: CryptoPairRules | None,
    approved: Decimal | None,
) -> Reviewed:
    """Stage B (blocking): a fresh record read beside the lane's view (on the review's
    quote), the policy on the reviewed terms, its journal entry and, when it passed, the
    hold repriced against the cap, in one transaction (or held again for the owner, as
    ``Guard._check_review`` does)."""
    policy = guard.policy
    limits = crypto_limits(policy)
    proposal = ticket.proposal
    state = guard._world.with_account(
        proposal.pair,
        _account_view(view, proposal.pair, review.quote),
        own=record,
        losses_of=guard._losses_of(record.identity),
        budget=budget_of(policy, CRYPTO_KIND),
    )
    decision = evaluate_crypto(proposal, review.terms, state, policy, Stage.REVIEW, rules)
    reasons = decision.codes
    if review.checks_passed is False:
        reasons = (*reasons, BROKER_CHECKS_FAILED)
    hold = crypto_hold_for(proposal, review.terms, decision, policy)
    caps = ledger_caps(policy, limits.max_daily_usd)
    ledger = guard.ledger
    with ledger.transaction(guard.account, events=True):
        guard._journal(record, identity, decision, _as_terms(review.terms), reasons)
        if reasons:
            figures = _figures(reasons, state, proposal, review.terms, policy)
            return Reviewed(reasons, record.status, figures=figures)
        if approved is not None and hold > approved * (1 + policy.approval_slippage_pct / 100):
            return Reviewed((), record.status, held_again=guard._hold_again(record, hold))
        over = ledger.reprice(record.id, hold, caps=caps)
        if over is not None:
            return Reviewed((over,), record.status)
        return Reviewed((), ledger.filing(record.id).status)

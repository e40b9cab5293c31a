"""``Guard``: the one chokepoint every order passes, from any entry point.

The order path (docs/architecture.md, "The order path")::

    proposal ─▶ file + stage A + reserve ─▶ [approval] ─▶ review + stage B ─▶ place
                      │ refused                │ denied/expired   │ refused      │ no answer
                      ▼                        ▼                  ▼              ▼
                   refused                 released           released      unanswered

1. The proposal is evaluated on terms estimated from a live quote (stage A) and filed under
   the caller's identity; in the same ledger transaction an accepted filing reserves its
   notional and one order against the rolling caps (a cap the engine saw as open may be
   closed by a concurrent filing: the ledger refuses it then).
2. If the policy asks for a person's approval, the filing waits bound to the SHA-256 of its
   exact terms and to the estimate shown (its notional), with a time to live. ``approve`` and
   ``deny`` continue or end it.
3. The broker reviews the filed terms; the policy runs again on the reviewed terms and a
   fresh state (stage B, authoritative), and the reservation is repriced to them atomically
   with the cap. A market move that pushes the order over a cap stops here; an approved
   order whose reviewed notional exceeds the estimate approved by more than
   ``approval_slippage_pct`` is held for the owner again, at the reviewed notional.
4. Exactly the filed fields are placed, with ``ref_id`` = the filing's id. The filing
   becomes ``submitted`` (or awaits the broker's own approval); submission is never a fill:
   only fills the broker reports are booked.
5. No answer to the place call leaves the filing ``unanswered``: the order may be live, so
   it is never re-sent; the reconciler looks it up by ``ref_id``.

An order may carry its filer's own key (``agent_key``: the venue's ``ref_id`` convention, a
fresh UUID per order and the same one on a retry): it is filed with the filing, once per
identity, and an order under a key already filed answers the first filing and files nothing
(``_keyed``).

A crypto order takes the same path on the venue's crypto lane (``submit_crypto``,
``execution/_crypto.py``); ``approve`` and ``cancel`` carry a crypto filing on that lane.

Every refusal and every ending is on the chained record; every decision is in the journal.
``submit``, ``approve``, ``deny``, ``cancel`` and ``cancel_open`` each run in the account's turn
(``Ledger.turns``): from the first read of the caps through the place call no other order on
the account runs, in this process or any other on the ledger, whoever calls the guard.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from decimal import Decimal
from typing import Any, Concatenate, ParamSpec, TypeVar
from uuid import UUID

import anyio

from ordergate.core import Clock, RealtimeClock, to_wire
from ordergate.execution._breakers import BREAKER_CODES, note_trip
from ordergate.execution._budgets import budget_of, ledger_caps
from ordergate.execution._crypto import review_and_place_crypto, submit_crypto
from ordergate.execution._crypto_terms import CRYPTO_KIND, crypto_account_of
from ordergate.execution._endings import deny_approval, end_filing
from ordergate.execution._exercise import EXERCISE_KIND, file_exercise, send_exercise
from ordergate.execution._figures import refusal_figures
from ordergate.execution._hold import hold_for
from ordergate.execution._keyed import REF_ID_REUSED, keyed_outcome
from ordergate.execution._kill_switch import CancelReport, cancel_open
from ordergate.execution._losses import LossRead
from ordergate.execution._options import OPTION_KIND, review_and_place, submit_option
from ordergate.execution._outcome import (
    APPROVAL_DECIDED,
    APPROVAL_DENIED,
    APPROVAL_EXCEEDED,
    APPROVAL_EXPIRED,
    APPROVAL_TERMS_ALTERED,
    BROKER_CHECKS_FAILED,
    BROKER_REFUSED,
    OUTSIDE_SESSION,
    REVIEW_UNANSWERED,
    Outcome,
)
from ordergate.execution._placing import Reviewed
from ordergate.execution._reconciler import DEFAULT_GRACE, Alert, Reconciler, ReconcileReport
from ordergate.execution._sessions import calendar_session, next_open_for
from ordergate.execution._terms import KIND, filing_terms, terms_sha256, ticket_of
from ordergate.execution._world import Filer, Seen, SessionSource, World
from ordergate.ledger import (
    AgentKeyUsedError,
    Approval,
    ApprovalState,
    Decision,
    Filing,
    FilingRecord,
    FilingResult,
    FilingStatus,
    Ledger,
    RollingCaps,
    UnknownFilingError,
)
from ordergate.policy import (
    AccountState,
    CryptoProposal,
    PolicyConfig,
    Proposal,
    ProposalError,
    Quote,
    Stage,
    Terms,
    estimate_terms,
    evaluate,
)
from ordergate.policy import Decision as PolicyDecision
from ordergate.policy.options import OptionProposal
from ordergate.store import blocking
from ordergate.venues import (
    AccountReader,
    BrokerOrder,
    BrokerRefusal,
    NoAnswer,
    OrderExecutor,
    Placement,
    QuotesNeeded,
    Review,
    Ticket,
    Venue,
    VolumeSource,
)

__all__ = ["BREAKER", "ApprovalNotifier", "Guard"]

_P = ParamSpec("_P")
_T = TypeVar("_T")
# How many times a stage's worker thread runs at most when the venue's view holds symbols its
# market half read no quote for (each run reads them first): the last takes what it has.
_QUOTE_ROUNDS = 3
# The journal's identity for what a breaker does.
BREAKER = "breaker"

logger = logging.getLogger(__name__)

ApprovalNotifier = Callable[[Approval, FilingRecord], Awaitable[None]]
"""Told of every new pending approval (e.g. a webhook); its failures are logged, not raised."""


def _in_turn(
    method: Callable[Concatenate[Guard, _P], Coroutine[Any, Any, _T]],
) -> Callable[Concatenate[Guard, _P], Coroutine[Any, Any, _T]]:
    """``method`` run in the account's turn (``Guard.turn``): from its first read of the
    caps through the place call, no other order on the account runs, in any process."""

    @functools.wraps(method)
    async def taken(guard: Guard, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        async with guard.turn():
            return await method(guard, *args, **kwargs)

    return taken


class _Reviewing:
    """The broker's review of a ticket, under way: its quote as soon as it answers (``None``
    when it failed), then the review itself, or its failure raised as it was."""

    def __init__(self, executor: OrderExecutor, ticket: Ticket) -> None:
        self._executor = executor
        self._ticket = ticket
        self._done = anyio.Event()
        self._review: Review | None = None
        self._error: Exception | None = None

    async def run(self) -> None:
        try:
            self._review = await self._executor.review(self._ticket)
        except Exception as error:  # raised again by ``result``, outside the task group
            self._error = error
        finally:
            self._done.set()

    async def quote(self) -> Quote | None:
        await self._done.wait()
        return None if self._review is None else self._review.quote

    def result(self) -> Review:
        if self._error is not None:
            raise self._error
        assert self._review is not None
        return self._review


class Guard:
    """The order path for one account. Build it with ``Guard.open`` (which also runs the
    background reconciler when asked)."""

    def __init__(
        self,
        *,
        policy: PolicyConfig,
        ledger: Ledger,
        venue: Venue,
        account: str,
        clock: Clock | None = None,
        session: SessionSource | None = None,
        notifier: ApprovalNotifier | None = None,
        grace: timedelta = DEFAULT_GRACE,
        alert: Alert | None = None,
        volumes: VolumeSource | None = None,
    ) -> None:
        """``notifier`` is told of each new pending approval, ``alert`` of each late order
        the reconciler adopts. ``volumes`` answers the symbol's average daily volume when
        the policy sets ``max_adv_pct`` (without it such a policy refuses every order)."""
        if not account:
            raise ValueError("a guard trades one account: give its account number")
        self._policy = policy
        self._ledger = ledger
        self._venue = venue
        self._lane = venue.equity
        self._account = account
        self._clock = clock or RealtimeClock()
        self._notifier = notifier
        self._volumes = volumes
        self._ttl = timedelta(seconds=policy.approval_ttl_s)
        self._caps = ledger_caps(policy)
        self._world = World(
            ledger,
            self._lane,
            account=account,
            clock=self._clock,
            session=session or calendar_session,
            source="paper" if venue.paper else "broker",
        )
        crypto = venue.crypto
        self.reconciler = Reconciler(
            ledger,
            self._lane.orders,
            account=account,
            clock=self._clock,
            grace=grace,
            caps=self._caps,
            alert=alert,
            crypto=None if crypto is None else crypto.lanes,
            options=venue.options,
        )

    @classmethod
    @asynccontextmanager
    async def open(
        cls, *, reconcile_every: float | None = None, **settings: Any
    ) -> AsyncIterator[Guard]:
        """``async with Guard.open(policy=…, ledger=…, venue=…, account=…) as
        guard:``; with ``reconcile_every`` (seconds) a background task reconciles that often
        while the block runs."""
        guard = cls(**settings)
        if reconcile_every is None:
            yield guard
            return
        if reconcile_every <= 0:
            raise ValueError("reconcile_every must be positive")
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(guard._reconcile_forever, reconcile_every)
            try:
                yield guard
            finally:
                tasks.cancel_scope.cancel()

    def narrowed(self, policy: PolicyConfig) -> Guard:
        """This guard under a tighter ``policy`` (a profile's overrides applied to this one's):
        the same account, ledger, venue and reconciler, the caps and rules of ``policy``.
        The caps count the account's whole record, so a narrower cap is reached sooner, never
        later. A filing it holds for approval is carried on, once approved, by whichever guard
        approves it."""
        narrow = copy.copy(self)
        narrow._policy = policy
        narrow._ttl = timedelta(seconds=policy.approval_ttl_s)
        narrow._caps = ledger_caps(policy)
        return narrow

    def use_policy(self, policy: PolicyConfig) -> None:
        """Check every order from now on against ``policy`` (the owner applied it): its caps,
        rules and approval time to live. An order already past a stage is not checked again
        at that stage; its next stage runs on ``policy``. The venue stays as it is (paper
        or live): arming is decided when the guard opens."""
        self._policy = policy
        self._ttl = timedelta(seconds=policy.approval_ttl_s)
        self._caps = ledger_caps(policy)
        self.reconciler.caps = self._caps

    @property
    def account(self) -> str:
        return self._account

    @property
    def venue(self) -> Venue:
        return self._venue

    @property
    def reader(self) -> AccountReader:
        """The venue's equity account reader (what ``ordergate status`` and the console
        read)."""
        return self._lane.account

    @property
    def paper(self) -> bool:
        return self._venue.paper

    @property
    def policy(self) -> PolicyConfig:
        return self._policy

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    @property
    def world(self) -> World:
        """The account's side of a decision, merged with the record (``World``)."""
        return self._world

    @property
    def caps(self) -> RollingCaps:
        """The rolling caps a filing reserves against (the policy's daily dollars and
        orders)."""
        return self._caps

    @property
    def clock(self) -> Clock:
        """The market clock the guard decides on (sessions, quote ages, the market day)."""
        return self._clock

    def turn(self) -> AbstractAsyncContextManager[None]:
        """The account's turn (``Ledger.turns``), which ``submit``, ``approve``, ``deny`` and
        ``cancel`` take themselves. A caller that checks something of its own with the
        filing (the gateway's open proposals per identity) holds it around both: the turn
        is reentrant in the task holding it. Raises ``AccountBusyError`` when it does not
        come within its bound."""
        return self._ledger.turns.account(self._account)

    # -- the order path --------------------------------------------------------------------

    @_in_turn
    async def submit(
        self, proposal: Proposal, *, identity: str, agent_key: UUID | None = None
    ) -> Outcome:
        """Run ``proposal`` through the order path under ``identity``, in the account's
        turn. With ``agent_key`` (the filer's own key for this order) an order ``identity``
        already filed under it is not filed again: see ``keyed``. Raises ``ProposalError``
        for a proposal naming another account, and ``AccountBusyError`` when the turn did not
        come within its bound (nothing is filed either way)."""
        if agent_key is not None:
            earlier = await self.keyed(proposal, identity=identity, agent_key=agent_key)
            if earlier is not None:
                return earlier
        else:
            self._own_account(proposal)
        seen = await self._world.seen(proposal)
        volume = await self._volume(proposal.symbol)
        try:
            decision, result, state, terms = await self._decided(
                self._estimate_and_file, seen, proposal, identity, volume, agent_key
            )
        except AgentKeyUsedError:
            # A concurrent order under the same key was filed first (and committed: the
            # key's row is what refused this one); nothing of this one was written.
            assert agent_key is not None
            earlier = await self.keyed(proposal, identity=identity, agent_key=agent_key)
            if earlier is None:
                raise
            return earlier
        record = result.record
        if not result.accepted:
            await self._tripped(record.reasons)
            next_open = None
            if OUTSIDE_SESSION in record.reasons:
                next_open = next_open_for(self._clock.now(), proposal.market_hours)
            return Outcome(
                record.id,
                FilingStatus.REFUSED,
                record.reasons,
                Stage.ESTIMATE,
                next_open=next_open,
                figures=refusal_figures(
                    record.reasons,
                    state,
                    proposal.quantity,
                    self._policy,
                    terms,
                    proposal.limit_price,
                ),
            )
        if decision.requires_approval:
            return await self._ask_approval(record)
        return await self._review_and_place(record, identity)

    @_in_turn
    async def submit_crypto(
        self, proposal: CryptoProposal, *, identity: str, agent_key: UUID | None = None
    ) -> Outcome:
        """Run a crypto order through the order path on the venue's crypto lane, in the
        account's turn (``execution/_crypto.py``). ``proposal.account`` is the crypto account
        (``rhs_account_number``). Raises ``CryptoNotOffered`` when the venue has no crypto
        lane (on paper: ``crypto_not_on_paper``), ``ProposalError`` for a proposal without
        its account, ``AccountBusyError`` as ``submit`` does (nothing is filed)."""
        return await submit_crypto(self, proposal, identity=identity, agent_key=agent_key)

    @_in_turn
    async def submit_option(
        self, proposal: OptionProposal, *, identity: str, agent_key: UUID | None = None
    ) -> Outcome:
        """Run the option order ``proposal`` through its order path (``execution._options``)
        under ``identity``, in the account's turn: filed with every leg, stage A on the legs'
        quotes, stage B on the venue's review, placed only as filed. Raises
        ``ProposalError`` for a proposal naming another account and ``AccountBusyError``
        when the turn did not come (nothing is filed either way)."""
        return await submit_option(self, proposal, identity=identity, agent_key=agent_key)

    @_in_turn
    async def replace_option(
        self,
        filing_id: UUID | str,
        proposal: OptionProposal,
        *,
        identity: str,
        agent_key: UUID | None = None,
    ) -> Outcome:
        """Replace the open option order filed as ``filing_id`` with ``proposal``, in the
        account's turn: a new filing checked in full while the replaced order still holds its
        reservation; only once it passes is the replaced order cancelled, and the
        replacement placed only when the venue confirms that cancel (``execution._options``).
        ``ProposalError`` (field ``order_id``) for a filing that is no open option order of
        this account, or ``account`` for a proposal naming another: nothing filed or sent."""
        replaced = await blocking(self._ledger.filing, filing_id)
        if replaced.account != self._account or replaced.kind != OPTION_KIND:
            raise ProposalError("order_id", "not an option order of this account")
        if replaced.status.terminal:
            raise ProposalError("order_id", f"the order has already ended ({replaced.status})")
        return await submit_option(
            self, proposal, identity=identity, agent_key=agent_key, replacing=replaced
        )

    @_in_turn
    async def request_exercise(
        self,
        *,
        act: str,
        option_id: str,
        quantity: int | None,
        identity: str,
        agent_key: UUID | None = None,
    ) -> Outcome:
        """File an option exercise (``act`` ``exercise``, ``quantity`` contracts) or the
        withdrawal of one (``cancel_exercise``) asked by ``identity``, and hold it for the
        owner whatever the policy or profile says: it is sent only once the owner approves
        (``approve``), in the account's turn (``execution._exercise``). ``ProposalError``
        naming the field for a request that cannot be filed (nothing filed). Under an
        ``agent_key`` ``identity`` already filed under, that filing's standing."""
        return await file_exercise(
            self,
            act=act,
            option_id=option_id,
            quantity=quantity,
            identity=identity,
            agent_key=agent_key,
        )

    async def end_filing(
        self,
        record: FilingRecord,
        status: FilingStatus,
        reasons: tuple[str, ...],
        *,
        stage: Stage | None = None,
        broker_code: str | None = None,
        figures: tuple[str, ...] = (),
    ) -> Outcome:
        """End ``record`` here with ``reasons`` (``figures``: the numbers behind them) and
        release what it held."""
        return await self._end(
            record, status, reasons, stage=stage, broker_code=broker_code, figures=figures
        )

    async def keyed(self, proposal: Proposal, *, identity: str, agent_key: UUID) -> Outcome | None:
        """The answer to ``proposal`` under ``agent_key`` when ``identity`` already filed an
        order under that key, else ``None``: where that filing stands now when ``proposal``
        files the same terms, else refused ``ref_id_reused`` (journalled). Nothing is filed
        or sent either way. Raises ``ProposalError`` for a proposal naming another account."""
        self._own_account(proposal)
        outcome = await self.keyed_as(
            identity, agent_key, lambda _: filing_terms(proposal, self._account)
        )
        if outcome is not None and OUTSIDE_SESSION in outcome.reasons:
            next_open = next_open_for(self._clock.now(), proposal.market_hours)
            return dataclasses.replace(outcome, next_open=next_open)
        return outcome

    async def keyed_as(
        self,
        identity: str,
        agent_key: UUID,
        terms_of: Callable[[FilingRecord], dict[str, Any]],
    ) -> Outcome | None:
        """Where ``identity``'s filing under ``agent_key`` stands when ``terms_of`` it (the
        order now sent, as that filing's kind files it) are its terms, else refused
        ``ref_id_reused`` (journalled); ``None`` when nothing was filed under the key. Every
        kind of order answers a retry here (``keyed``, crypto, options)."""
        record = await blocking(self._ledger.keyed_filing, identity, agent_key)
        if record is None:
            return None
        outcome = await blocking(keyed_outcome, self._ledger, record, terms_of(record))
        if REF_ID_REUSED in outcome.reasons:
            await blocking(
                self._ledger.journal.append,
                identity=identity,
                kind="agent_key",
                why=f"refused: {REF_ID_REUSED}",
                detail={"agent_key": str(agent_key), "filed_as": str(record.id)},
            )
        return outcome

    def _own_account(self, proposal: Proposal) -> None:
        if proposal.account is not None and proposal.account != self._account:
            raise ProposalError("account", "this guard trades one account only")

    @_in_turn
    async def approve(self, approval_id: UUID | str, *, by: str) -> Outcome:
        """Approve a pending approval and carry its order on (review, stage B, place). An
        expired approval, or terms that no longer hash to what was approved, are refused."""
        approval, record = await self._approval(approval_id)
        decided = await blocking(
            self._ledger.approvals.claim,
            approval.id,
            approve=True,
            terms_sha256=terms_sha256(record.terms),
            by=by,
        )
        if decided is None:
            return Outcome(record.id, record.status, (APPROVAL_DECIDED,), approval_id=approval.id)
        if decided.state is ApprovalState.EXPIRED:
            return await self._end(record, FilingStatus.EXPIRED, (APPROVAL_EXPIRED,), approval)
        if decided.state is ApprovalState.DENIED:
            return await self._end(record, FilingStatus.DENIED, (APPROVAL_TERMS_ALTERED,), approval)
        await blocking(
            self._ledger.record_status,
            record.id,
            FilingStatus.APPROVED,
            detail={"approval_id": str(approval.id), "by": by},
        )
        approved = approval.notional if approval.notional is not None else record.notional
        if record.kind == CRYPTO_KIND:
            outcome = await review_and_place_crypto(self, record, by, approved=approved)
        elif record.kind == OPTION_KIND:
            outcome = await review_and_place(self, record)
        elif record.kind == EXERCISE_KIND:
            outcome = await send_exercise(self, record)
        else:
            outcome = await self._review_and_place(record, by, approved=approved)
        # An order held again answers with its new approval.
        return dataclasses.replace(outcome, approval_id=outcome.approval_id or approval.id)

    @_in_turn
    async def deny(self, approval_id: UUID | str, *, by: str) -> Outcome:
        """Deny a pending approval: the filing ends and its reservation is released."""
        await self._approval(approval_id)
        return await blocking(deny_approval, self._ledger, approval_id, by=by)

    @_in_turn
    async def cancel(self, filing_id: UUID | str, *, identity: str) -> Outcome:
        """Cancel a filed order: a pending approval is denied; an order at the broker is asked
        to cancel and then read back. ``ProposalError`` (field ``filing``) for a filing of
        another account: nothing is recorded or sent. ``BrokerRefusal`` when the broker
        refuses (e.g. it has already filled), ``NoAnswer`` when it does not answer. Like
        ``approve`` and ``deny``, it runs in the account's turn (``AccountBusyError`` past
        its bound, nothing done)."""
        record = await blocking(self._ledger.filing, filing_id)
        if record.account != self._account:
            raise ProposalError("filing", "this filing is for another account")
        await blocking(
            self._ledger.journal.append,
            identity=identity,
            kind="cancel",
            why="cancel requested",
            filing_id=record.id,
        )
        if record.status is FilingStatus.PENDING_APPROVAL:
            approval = await blocking(self._ledger.approvals.for_filing, record.id)
            if approval is not None:
                return await self.deny(approval.id, by=identity)
        order_id = await blocking(self._order_id, record.id)
        if order_id is None or record.status.terminal:
            return Outcome(record.id, record.status)
        if record.kind == CRYPTO_KIND:
            lane, account = self.reconciler.crypto_lane(record), crypto_account_of(record)
            await lane.cancel(account, order_id)
            order = await lane.poll(account, order_id)
        elif record.kind == OPTION_KIND:
            options = self._venue.options
            assert options is not None  # an option order was placed only on a venue taking them
            await options.cancel(self._account, order_id)
            order = await options.poll(self._account, order_id)
        else:
            orders = self._lane.orders
            await orders.cancel(self._account, order_id)
            order = await orders.poll(self._account, order_id)
        status = await self.reconciler.settle(record, order)
        return Outcome(record.id, status, order_id=order_id)

    @_in_turn
    async def cancel_open(self, *, identity: str, why: str) -> list[CancelReport]:
        """The kill switch's cancels, in the account's turn (no order of the account is
        placed meanwhile): every open filing of this account is cancelled (see
        ``execution._kill_switch``), each outcome journalled under ``identity``."""
        return await cancel_open(self, identity=identity, why=why)

    async def _tripped(self, reasons: tuple[str, ...]) -> None:
        """A refusal by a breaker: with ``[cooldown] minutes`` its instant is recorded (buys
        are refused that long after it); under ``halt_cancels_open`` every working order is
        cancelled."""
        tripped = [reason for reason in reasons if reason in BREAKER_CODES]
        if not tripped:
            return
        policy = self._policy
        await blocking(
            note_trip, self._ledger, policy, tripped, at=self._clock.now(), account=self._account
        )
        if policy.halt_cancels_open:
            await self.cancel_open(identity=BREAKER, why="breaker tripped: " + ", ".join(tripped))

    async def standing(self, filing_id: UUID | str) -> Outcome:
        """Where a filing of this account stands now, as the ledger has it: its latest status
        (a denied or expired one with that reason), its approval and its order id at the
        broker. ``ProposalError`` (field ``filing``) for a filing of another account."""
        record = await blocking(self._ledger.filing, filing_id)
        if record.account != self._account:
            raise ProposalError("filing", "this filing is for another account")
        approval = await blocking(self._ledger.approvals.for_filing, record.id)
        reasons = {
            FilingStatus.DENIED: (APPROVAL_DENIED,),
            FilingStatus.EXPIRED: (APPROVAL_EXPIRED,),
        }.get(record.status, record.reasons)
        return Outcome(
            record.id,
            record.status,
            reasons,
            approval_id=None if approval is None else approval.id,
            order_id=await blocking(self._order_id, record.id),
        )

    async def reconcile(self) -> ReconcileReport:
        """One reconciliation pass (see ``Reconciler``)."""
        return await self.reconciler.run_once()

    # -- steps -----------------------------------------------------------------------------

    async def ask_approval(self, record: FilingRecord) -> Outcome:
        """Hold the accepted filing ``record`` for the owner's approval (its reservation
        kept) and announce it."""
        return await self._ask_approval(record)

    async def _ask_approval(self, record: FilingRecord) -> Outcome:
        approval = await blocking(
            self._ledger.approvals.create, record.id, terms_sha256(record.terms), ttl=self._ttl
        )
        await blocking(
            self._ledger.record_status,
            record.id,
            FilingStatus.PENDING_APPROVAL,
            detail={"approval_id": str(approval.id), "expires_at": approval.expires_at.isoformat()},
        )
        await self._announce(approval, record)
        return Outcome(record.id, FilingStatus.PENDING_APPROVAL, approval_id=approval.id)

    async def _announce(self, approval: Approval, record: FilingRecord) -> None:
        if self._notifier is not None:
            try:
                await self._notifier(approval, record)
            except Exception as error:  # a notifier must never stop the order path
                logger.warning("approval notifier failed: %s", type(error).__name__)

    async def _review_and_place(
        self, record: FilingRecord, identity: str, *, approved: Decimal | None = None
    ) -> Outcome:
        """Review, stage B, place. ``approved``: the estimate the owner approved, for an
        order carried on from its approval."""
        ticket = ticket_of(record)
        # The review and stage B's view of the account are read at once: the view takes the
        # review's quote as soon as it answers, and reads the rest meanwhile.
        reviewing = _Reviewing(self._lane.orders, ticket)
        async with anyio.create_task_group() as group:
            group.start_soon(reviewing.run)
            seen = await self._world.seen(ticket.proposal, quote_from=reviewing.quote())
        volume = await self._volume(ticket.proposal.symbol)
        try:
            review = reviewing.result()
        except NoAnswer:
            return await self._end(record, FilingStatus.FAILED, (REVIEW_UNANSWERED,))
        except BrokerRefusal as refusal:
            return await self._end(
                record, FilingStatus.REJECTED, (BROKER_REFUSED,), broker_code=refusal.code
            )
        checked = await self._decided(
            self._check_review, seen, record, identity, ticket, review, approved, volume
        )
        stopped = await self.after_review(record, checked)
        if stopped is not None:
            return stopped
        return await self.placed(record, self._place(record, ticket, checked.looked, review))

    async def after_review(self, record: FilingRecord, checked: Reviewed) -> Outcome | None:
        """Where stage B's ``checked`` stops ``record``: held again (an order that came to
        cost more than its approval), refused (a breaker trips on what trips one), or
        already ended by a reconciler (past the grace, while it was being reviewed: it is
        not sent now, under a filing the record says never reached the broker). ``None``:
        the order goes on to be placed."""
        if checked.held_again is not None:
            await self._announce(checked.held_again, record)
            return Outcome(
                record.id,
                FilingStatus.PENDING_APPROVAL,
                (APPROVAL_EXCEEDED,),
                Stage.REVIEW,
                checked.held_again.id,
            )
        if checked.refused:
            ended = await self._end(
                record,
                FilingStatus.REFUSED,
                checked.refused,
                stage=Stage.REVIEW,
                figures=checked.figures,
            )
            await self._tripped(checked.refused)
            return ended
        if checked.status.terminal:
            return Outcome(record.id, checked.status)
        return None

    async def placed(
        self, record: FilingRecord, placing: Awaitable[tuple[Placement, FilingStatus | None]]
    ) -> Outcome:
        """What placing ``record``'s order came to, on the record: unanswered when the venue
        did not answer (the reconciler looks for it by ``ref_id``), rejected with the
        venue's code, awaiting the broker's approval when the venue holds it, else
        submitted with what the venue reported of it. ``placing`` answers the placement and
        its recorded status when the venue wrote it itself (``None``: still to record)."""
        try:
            placement, recorded = await placing
        except NoAnswer:
            await blocking(self._ledger.record_status, record.id, FilingStatus.UNANSWERED)
            return Outcome(record.id, FilingStatus.UNANSWERED)
        except BrokerRefusal as refusal:
            return await self._end(
                record, FilingStatus.REJECTED, (BROKER_REFUSED,), broker_code=refusal.code
            )
        order = placement.order
        if order is None:
            await blocking(
                self._ledger.record_status, record.id, FilingStatus.AWAITING_BROKER_APPROVAL
            )
            return Outcome(record.id, FilingStatus.AWAITING_BROKER_APPROVAL)
        status = (
            recorded if recorded is not None else await blocking(self._submitted, record, order)
        )
        return Outcome(record.id, status, order_id=order.order_id)

    async def _place(
        self, record: FilingRecord, ticket: Ticket, looked: object | None, review: Review
    ) -> tuple[Placement, FilingStatus | None]:
        """Place ``ticket`` (``EquityLane.place_and_record``): a venue on the ledger's
        database writes the placement's record (``_submitted``) in its own transaction, in
        the same worker thread, after what stage B ``looked`` at, and fills at the quote the
        order was just reviewed on; any other answers ``None`` (still to be recorded)."""
        return await self._lane.place_and_record(
            ticket,
            lambda order: self._submitted(record, order),
            looked=looked,
            reviewed=review.quote,
        )

    async def _end(
        self,
        record: FilingRecord,
        status: FilingStatus,
        reasons: tuple[str, ...],
        approval: Approval | None = None,
        *,
        stage: Stage | None = None,
        broker_code: str | None = None,
        figures: tuple[str, ...] = (),
    ) -> Outcome:
        return await blocking(
            end_filing,
            self._ledger,
            record,
            status,
            reasons,
            approval,
            stage=stage,
            broker_code=broker_code,
            figures=figures,
        )

    # -- the stages' ledger work, each in one worker thread and its writes in one
    # transaction: the record read, the policy, and what the decision writes -------------

    async def _decided(
        self,
        step: Callable[Concatenate[Seen, bool, _P], _T],
        seen: Seen,
        *args: _P.args,
        **kwargs: _P.kwargs,
    ) -> _T:
        """``step(seen, final, *args)`` in a worker thread: a stage's record read, policy
        and writes. The venue's view is completed in it (``EquityLane.view``), which may ask
        (``QuotesNeeded``) for the quotes of holdings ``seen`` has none for: they are read
        and the step runs again (at most ``_QUOTE_ROUNDS`` times; the last takes what it has)."""
        for _ in range(_QUOTE_ROUNDS - 1):
            try:
                return await blocking(step, seen, False, *args, **kwargs)
            except QuotesNeeded as needed:
                seen = await self._world.more_quotes(seen, needed)
        return await blocking(step, seen, True, *args, **kwargs)

    def _estimate_and_file(
        self,
        seen: Seen,
        final: bool,
        proposal: Proposal,
        identity: str,
        volume: Decimal | None,
        agent_key: UUID | None = None,
    ) -> tuple[PolicyDecision, FilingResult, AccountState, Terms]:
        """Stage A (blocking): the record read beside the venue's view (``seen``; on paper
        the book is read here too) with the filer's recent orders, the policy on the
        estimated terms, then the filing (and its reservation, and ``agent_key``) with the
        journal entry of its decision, committed together before anything is sent. Also
        returns the state the decision was made on (its refusal's figures name what it
        counted). ``AgentKeyUsedError`` (nothing written) when ``identity`` filed under
        ``agent_key`` meanwhile."""
        policy, caps = self._policy, self._caps
        filed = filing_terms(proposal, self._account)
        window = timedelta(seconds=policy.duplicate_window_s)
        world = self._world.with_record(
            proposal,
            seen,
            final=final,
            filer=Filer(identity, filed, window),
            volume=volume,
            losses_of=self._losses_of(identity),
            budget=budget_of(policy, KIND),
        )
        terms = estimate_terms(proposal, world.state.quote)
        decision = evaluate(proposal, terms, world.state, policy, Stage.ESTIMATE)
        filing = Filing(
            identity=identity,
            terms=filed,
            account=self._account,
            kind=KIND,
            decision=Decision.ACCEPT if decision.allowed else Decision.REFUSE,
            reasons=decision.codes,
            agent_key=agent_key,
        )
        notional = hold_for(proposal, terms, decision, policy)
        keyed = {} if agent_key is None else {"agent_key": str(agent_key)}
        with self._ledger.transaction(self._account):
            result = self._ledger.file_and_reserve(filing, notional=notional, caps=caps)
            record = result.record
            self._journal(record, identity, decision, terms, record.reasons, keyed)
        return decision, result, world.state, terms

    def _check_review(
        self,
        seen: Seen,
        final: bool,
        record: FilingRecord,
        identity: str,
        ticket: Ticket,
        review: Review,
        approved: Decimal | None,
        volume: Decimal | None,
    ) -> Reviewed:
        """Stage B (blocking): a fresh record read beside the broker's view (``seen``), the
        policy on the reviewed terms, then its journal entry and, when it passed, the
        reservation repriced against the cap and the filing's status read back, in one
        transaction; what the venue's lane looks at for the placement that follows
        (``EquityLane.look``) is read there too. An order the owner ``approved``
        at an estimate its reviewed hold now exceeds by more than ``approval_slippage_pct``
        is held again instead, in the same transaction: a new approval of the reviewed
        notional, nothing repriced or sent."""
        policy, caps = self._policy, self._caps
        proposal = ticket.proposal
        world = self._world.with_record(
            proposal,
            seen,
            own=record,
            quote=review.quote,
            final=final,
            volume=volume,
            losses_of=self._losses_of(record.identity),
            budget=budget_of(policy, KIND),
        )
        decision = evaluate(proposal, review.terms, world.state, policy, Stage.REVIEW)
        reasons = decision.codes
        if review.checks_passed is False:
            reasons = (*reasons, BROKER_CHECKS_FAILED)
        hold = hold_for(proposal, review.terms, decision, policy)
        with self._ledger.transaction(self._account, events=True):
            self._journal(record, identity, decision, review.terms, reasons)
            if reasons:
                quantity = proposal.quantity
                if quantity is None:
                    quantity = review.terms.quantity
                figures = refusal_figures(
                    reasons, world.state, quantity, policy, review.terms, proposal.limit_price
                )
                return Reviewed(reasons, record.status, figures=figures)
            if approved is not None and hold > approved * (1 + policy.approval_slippage_pct / 100):
                return Reviewed((), record.status, held_again=self._hold_again(record, hold))
            over = self._ledger.reprice(record.id, hold, caps=caps)
            if over is not None:
                return Reviewed((over,), record.status)
            status = self._ledger.filing(record.id).status
            return Reviewed((), status, self._lane.look(ticket))

    def _hold_again(self, record: FilingRecord, notional: Decimal) -> Approval:
        """A new pending approval of ``record`` at ``notional`` (in the caller's
        transaction); the reservation keeps what was filed until a review after approval."""
        approval = self._ledger.approvals.create(
            record.id, terms_sha256(record.terms), ttl=self._ttl, notional=notional
        )
        self._ledger.record_status(
            record.id,
            FilingStatus.PENDING_APPROVAL,
            detail={
                "approval_id": str(approval.id),
                "expires_at": approval.expires_at.isoformat(),
                "reasons": [APPROVAL_EXCEEDED],
                "notional": to_wire(notional),
            },
        )
        return approval

    def _submitted(self, record: FilingRecord, order: BrokerOrder) -> FilingStatus:
        """A placed order on the record: ``submitted`` and what the broker reported of it
        (its state, fills, status and, once it ended, the corrected reservation), in one
        transaction. Not flushed at its commit (``durable=False``): it records what followed
        a placement, which the reconciler finds again at the broker by ``ref_id`` should
        power loss take it; the filing it follows was flushed before anything was sent."""
        with self._ledger.transaction(self._account, events=True, durable=False):
            self._ledger.record_status(
                record.id, FilingStatus.SUBMITTED, detail={"order_id": order.order_id}
            )
            return self.reconciler.settle_now(record, order)

    # -- helpers ---------------------------------------------------------------------------

    def _journal(
        self,
        record: FilingRecord,
        identity: str,
        decision: PolicyDecision,
        terms: Terms,
        reasons: tuple[str, ...],
        extra: dict[str, Any] | None = None,
    ) -> None:
        detail: dict[str, Any] = {
            **(extra or {}),
            "stage": decision.stage.value,
            "allowed": not reasons,
            "reasons": list(reasons),
            "reduces_position": decision.reduces_position,
            "requires_approval": decision.requires_approval,
        }
        for name in ("price", "notional", "quantity"):
            value = getattr(terms, name)
            detail[name] = None if value is None else to_wire(value)
        why = "allowed" if not reasons else "refused: " + ", ".join(reasons)
        self._ledger.journal.append(
            identity=identity,
            kind=f"policy_{decision.stage.value}",
            why=why,
            filing_id=record.id,
            detail=detail,
        )

    async def _approval(self, approval_id: UUID | str) -> tuple[Approval, FilingRecord]:
        approval = await blocking(self._ledger.approvals.get, approval_id)
        record = await blocking(self._ledger.filing, approval.filing_id)
        if record.account != self._account:
            raise ProposalError("approval", "this approval is for another account")
        return approval, record

    def _losses_of(self, identity: str) -> LossRead | None:
        """Whose losing closed trades a stage reads, and over what window: the filer's,
        when the policy counts a streak."""
        policy = self._policy
        if not (policy.loss_streak and policy.cooldown_minutes):
            return None
        return LossRead(identity, policy.cooldown + policy.loss_window)

    async def _volume(self, symbol: str) -> Decimal | None:
        """The symbol's average daily volume, read only when the policy weighs it."""
        if self._policy.max_adv_pct is None or self._volumes is None:
            return None
        return await self._volumes.average_daily_volume(symbol)

    def _order_id(self, filing_id: UUID) -> str | None:
        try:
            return self._ledger.orders.get(filing_id).broker_order_id
        except UnknownFilingError:
            return None

    async def _reconcile_forever(self, every: float) -> None:
        while True:  # bounded by the guard's lifetime: cancelled when the block exits
            await anyio.sleep(every)
            try:
                await self.reconciler.run_once()
            except Exception as error:  # one bad pass must not end reconciliation
                logger.warning("reconcile pass failed: %s", type(error).__name__)

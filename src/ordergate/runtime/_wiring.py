"""``open_guard``: the guard a configuration describes, with its upstream and its mode.

Paper unless live is armed (``ordergate.execution.arm``): the upstream's ``tools/list`` is
read at start, and live mode needs it compatible with the pinned contract and the policy's
``real_money = true``. Paper runs the same path against the venue's own engine on a paper book
in the ledger's database (``ordergate.venues.paper.PaperVenue``), on the upstream's prices.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from ordergate.client import Robinhood
from ordergate.client.crypto_rest import CryptoRest
from ordergate.core import Clock, SecurityClock, ToolError
from ordergate.execution import ApprovalNotifier, Arming, Guard, arm
from ordergate.ledger import Approval, FilingRecord, Ledger, open_ledger
from ordergate.policy import Mode, PolicyConfig
from ordergate.runtime._policy import policy_in_force
from ordergate.runtime._settings import Settings
from ordergate.runtime._upstream import Upstream, open_upstream
from ordergate.runtime._webhook import WebhookNotifier
from ordergate.venues import Venue
from ordergate.venues.paper import PaperVenue
from ordergate.venues.robinhood import MarketVolumes, RobinhoodVenue

__all__ = ["Running", "guard_on", "open_guard"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Running:
    guard: Guard
    arming: Arming
    upstream: Upstream
    policy: PolicyConfig
    notes: tuple[str, ...]


@asynccontextmanager
async def open_guard(
    settings: Settings,
    *,
    clock: Clock,
    security_clock: SecurityClock | None = None,
    reconcile_every: float | None = None,
    ledger: Ledger | None = None,
    in_force: tuple[PolicyConfig, str | None] | None = None,
    deferred: bool = False,
) -> AsyncIterator[Running]:
    """The configured guard for the block, on the policy in force (``policy_in_force``, or
    ``in_force`` — the policy and its note — when the caller has read it from this ledger).
    Raises ``ConfigError`` (a bad policy, or one that loosens the applied policy:
    ``PolicyNotApplied``), ``LedgerError`` (unusable ledger), ``ToolError`` (the upstream
    cannot be reached). ``clock`` is the market's; a ledger this opens records on
    ``security_clock`` (wall time; without one, on ``clock``): the market clock moves the
    market only. ``deferred``: an embedded sandbox venue
    starts only if a call needs it (``open_upstream``)."""
    owned = ledger is None
    opened = (
        open_ledger(settings.db_url, clock=security_clock or clock, security_clock=security_clock)
        if ledger is None
        else ledger
    )
    try:
        policy, policy_note = (
            in_force if in_force is not None else policy_in_force(settings, opened)
        )
        async with (
            open_upstream(settings, clock=clock, deferred=deferred) as upstream,
            guard_on(
                upstream.rh,
                account=upstream.account,
                rhs_account=upstream.rhs_account,
                account_type=upstream.account_type,
                option_level=upstream.option_level,
                crypto_rest=upstream.crypto_rest,
                policy=policy,
                ledger=opened,
                clock=clock,
                reconcile_every=reconcile_every,
                webhook_url=settings.webhook_url,
                console_url=settings.console_url,
            ) as (guard, arming),
        ):
            notes = tuple(note for note in (policy_note, upstream.note, arming.reason) if note)
            yield Running(guard, arming, upstream, policy, notes)
    finally:
        if owned:
            opened.close()


@asynccontextmanager
async def guard_on(
    rh: Robinhood,
    *,
    account: str | None = None,
    rhs_account: str | None = None,
    account_type: str | None = None,
    option_level: int | None = None,
    policy: PolicyConfig,
    ledger: Ledger,
    clock: Clock,
    reconcile_every: float | None = None,
    webhook_url: str | None = None,
    console_url: str | None = None,
    crypto_rest: CryptoRest | None = None,
    notify: ApprovalNotifier | None = None,
) -> AsyncIterator[tuple[Guard, Arming]]:
    """The guard for the account ``rh`` is signed in to, and how it was armed: live only when
    ``arm`` says so from ``rh``'s own ``tools/list``, else paper: the venue's engine on a paper
    book in ``ledger``'s database.
    Raises ``ToolError`` when the account cannot be read. ``account``: the agentic account
    when it is known without asking ``rh`` (a deferred embedded venue; ``rhs_account`` its
    rhs account number, ``account_type`` and ``option_level`` its type and option level,
    with which the paper book opens unasked unless the policy's ``[paper]`` names them); a
    paper policy is then armed without reading ``tools/list`` (``arm`` does not look at it),
    so nothing is called until the guard needs a price. ``crypto_rest``: the Crypto Trading
    REST client when a key is stored; live, the venue then has the REST rail as a crypto lane
    beside the MCP's, and the policy's ``crypto.route`` picks one per filing. ``notify``: told
    of each new pending approval too, after the owner's webhook (a hosted rail's push to
    the person)."""
    tools: list[dict[str, Any]] | None = None
    if account is None or policy.mode is not Mode.PAPER:
        try:
            tools = await rh.list_tools()
        except ToolError as error:
            logger.warning("could not read the upstream's tools/list: %s", error.code)
    arming = arm(policy, tools=tools)
    if account is None:
        agentic = await rh.accounts.agentic()
        account, rhs_account = agentic.account_number, agentic.rhs_account_number
    venue: Venue
    if arming.live:
        venue = RobinhoodVenue.through(rh, clock=clock, crypto_rest=crypto_rest)
    else:
        venue = PaperVenue.for_policy(
            rh,
            ledger.engine,
            policy,
            clock=clock,
            account=account,
            rhs_account=rhs_account,
            account_type=account_type,
            option_level=option_level,
        )
    notifier = (
        WebhookNotifier(webhook_url, console_url=console_url)
        if webhook_url or console_url
        else None
    )
    async with Guard.open(
        reconcile_every=reconcile_every,
        policy=policy,
        ledger=ledger,
        account=account,
        clock=clock,
        notifier=_both(notifier, notify),
        alert=None if notifier is None else notifier.announce,
        volumes=MarketVolumes(rh.market, clock=clock),
        venue=venue,
    ) as guard:
        yield guard, arming


def _both(first: ApprovalNotifier | None, then: ApprovalNotifier | None) -> ApprovalNotifier | None:
    """One notifier telling ``first``, then ``then`` (either may be absent)."""
    if first is None or then is None:
        return first or then

    async def told(approval: Approval, record: FilingRecord) -> None:
        await first(approval, record)
        await then(approval, record)

    return told

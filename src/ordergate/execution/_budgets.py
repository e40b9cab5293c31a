"""Which rolling 24 h dollar budget a filing spends: the shared one (``[limits]
max_daily_usd``) or, for a kind the policy splits off (``[options] split_daily_budget``:
option premium against ``max_daily_premium_usd``; ``[crypto] split_daily_budget``: crypto
against its ``max_daily_usd``), that kind's own.

- **What a decision counts** (``spent``): a split kind counts its own filings' spend; every
  other kind the record's whole spend less the split kinds'. Without a split nothing changes:
  the whole spend, as before.
- **What the ledger caps** (``ledger_caps``): the ledger's rolling cap is one sum over every
  filing of the account, so with a kind split off it bounds the total a day can reach when
  every budget holds (the shared budget plus each split one); each budget's own bound is the
  policy's check on what ``spent`` counts. Both run in the account's turn (``Guard``), so no
  concurrent filing of the account slips between the check and the reservation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ordergate.execution._crypto_terms import CRYPTO_KIND
from ordergate.execution._option_terms import OPTION_KIND
from ordergate.ledger import Ledger, RollingCaps
from ordergate.policy import PolicyConfig

__all__ = ["SHARED", "Budget", "budget_of", "ledger_caps", "spent_of", "split_caps"]


@dataclass(frozen=True, slots=True)
class Budget:
    """Whose budget a decision counts: the filing's ``kind`` and the kinds ``split`` off the
    shared budget."""

    kind: str
    split: frozenset[str] = frozenset()


SHARED = Budget("equity_order")
"""An equity order with nothing split off: the record's whole spend."""


def split_caps(policy: PolicyConfig) -> dict[str, Decimal]:
    """Each filing kind the policy takes off the shared budget, with its own daily cap."""
    caps: dict[str, Decimal] = {}
    options, crypto = policy.options, policy.crypto
    if options is not None and options.split_daily_budget:
        caps[OPTION_KIND] = options.max_daily_premium_usd
    if crypto is not None and crypto.split_daily_budget and crypto.max_daily_usd is not None:
        caps[CRYPTO_KIND] = crypto.max_daily_usd
    return caps


def budget_of(policy: PolicyConfig, kind: str) -> Budget:
    """The budget a filing of ``kind`` counts under ``policy``."""
    return Budget(kind, frozenset(split_caps(policy)))


def ledger_caps(policy: PolicyConfig, daily: Decimal | None = None) -> RollingCaps:
    """The rolling caps a filing reserves against: ``daily`` (default the shared budget)
    without a split; with one, the total of every budget (see the module docstring)."""
    split = split_caps(policy)
    if split:
        daily = policy.max_daily_usd + sum(split.values(), Decimal(0))
    elif daily is None:
        daily = policy.max_daily_usd
    return RollingCaps(daily, policy.max_orders_per_day)


def spent_of(
    ledger: Ledger,
    account: str,
    total: Decimal,
    *,
    kind: str,
    split: frozenset[str],
    now: datetime,
) -> Decimal:
    """Blocking: what a decision on a filing of ``kind`` counts of ``total`` (the record's
    whole rolling spend at ``now``), the kinds in ``split`` being off the shared budget."""
    if not split:
        return total
    if kind in split:
        return ledger.rolling_spend(account, now=now, kind=kind).notional
    for other in split:
        total -= ledger.rolling_spend(account, now=now, kind=other).notional
    return total

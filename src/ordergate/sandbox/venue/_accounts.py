"""Brokerage accounts: exactly one may be traded by an agent (``agentic_allowed``).

The agentic account is a ``cash`` account at ``option_level_2`` unless the venue is set up
otherwise (``ordergate sandbox serve --account-type margin --option-level 3``): the types and
levels the captured tools describe (``ACCOUNT_TYPES``, ``OPTION_LEVELS``). Buying power is
cash in both types (the sandbox lends nothing).

Cash is shared by every desk (equities, options, crypto). A desk that accepts an order
puts a *hold* on buying power under the order's id and releases it when the order ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from ordergate.core import ZERO
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._ids import IdFactory

__all__ = ["ACCOUNT_TYPES", "OPTION_LEVELS", "Account", "Accounts"]

ACCOUNT_TYPES = ("cash", "margin")
OPTION_LEVELS = (1, 2, 3)


@dataclass(slots=True)
class Account:
    account_number: str
    rhs_account_number: str
    type: str
    brokerage_account_type: str
    nickname: str
    is_default: bool
    agentic_allowed: bool
    option_level: str
    cash: Decimal
    human_must_approve_trades: bool = False
    approval_setting_updated_at: datetime | None = None
    holds: dict[str, Decimal] = field(default_factory=dict)

    @property
    def is_retirement(self) -> bool:
        return self.brokerage_account_type.startswith("ira")

    @property
    def multi_leg_allowed(self) -> bool:
        """Multi-leg option orders: "not available on cash or retirement accounts"."""
        return self.type == "margin" and not self.is_retirement

    @property
    def buying_power(self) -> Decimal:
        return self.cash - sum(self.holds.values(), ZERO)

    def hold(self, key: str, amount: Decimal) -> None:
        self.holds[key] = amount

    def release(self, key: str) -> None:
        self.holds.pop(key, None)


class Accounts:
    """The sandbox user's accounts: an agentic individual account and a read-only IRA."""

    def __init__(
        self,
        ids: IdFactory,
        *,
        cash: Decimal,
        approval_required: bool,
        account_type: str = "cash",
        option_level: int = 2,
        agentic_numbers: tuple[str, str] | None = None,
    ) -> None:
        """``agentic_numbers``: the agentic account's ``(account_number,
        rhs_account_number)`` when they are given (a paper book carrying the upstream's
        account); else both are drawn from ``ids`` as the sandbox's own."""
        number, rhs_number = (
            agentic_numbers
            if agentic_numbers is not None
            else (
                ids.account_number("individual"),
                ids.account_number("rhs-individual", width=10),
            )
        )
        agentic = Account(
            account_number=number,
            rhs_account_number=rhs_number,
            type=account_type,
            brokerage_account_type="individual",
            nickname="Agentic",
            is_default=False,
            agentic_allowed=True,
            option_level=f"option_level_{option_level}",
            cash=cash,
            human_must_approve_trades=approval_required,
        )
        ira = Account(
            account_number=ids.account_number("ira"),
            rhs_account_number=ids.account_number("rhs-ira", width=10),
            type="cash",
            brokerage_account_type="ira_roth",
            nickname="Roth IRA",
            is_default=True,
            agentic_allowed=False,
            option_level="option_level_1",
            cash=Decimal("25000.00"),
        )
        if {agentic.account_number, agentic.rhs_account_number} & {
            ira.account_number,
            ira.rhs_account_number,
        }:
            raise ValueError("the agentic account's numbers must not be the IRA's")
        self._by_number = {a.account_number: a for a in (agentic, ira)}
        self._by_rhs = {a.rhs_account_number: a for a in (agentic, ira)}

    def all(self) -> list[Account]:
        return list(self._by_number.values())

    @property
    def agentic(self) -> Account:
        return next(a for a in self._by_number.values() if a.agentic_allowed)

    def get(self, account_number: str, *, field_name: str = "account_number") -> Account:
        """Any of the user's accounts (reads work on every account)."""
        account = self._by_number.get(account_number)
        if account is None:
            raise VenueError("NOT_FOUND", f"account {account_number!r} not found", field=field_name)
        return account

    def get_rhs(
        self, rhs_account_number: str, *, field_name: str = "rhs_account_number"
    ) -> Account:
        account = self._by_rhs.get(rhs_account_number)
        if account is None:
            raise VenueError(
                "NOT_FOUND", f"account {rhs_account_number!r} not found", field=field_name
            )
        return account

    def tradable(self, account_number: str, *, field_name: str = "account_number") -> Account:
        """The account, only if an agent may trade it."""
        account = self.get(account_number, field_name=field_name)
        if not account.agentic_allowed:
            raise VenueError(
                "ACCOUNT_NOT_AGENTIC",
                f"account {account_number} is not enabled for agentic trading",
                field=field_name,
            )
        return account

    def tradable_rhs(self, rhs_account_number: str) -> Account:
        account = self.get_rhs(rhs_account_number)
        if not account.agentic_allowed:
            raise VenueError(
                "ACCOUNT_NOT_AGENTIC",
                f"account {rhs_account_number} is not enabled for agentic trading",
                field="rhs_account_number",
            )
        return account

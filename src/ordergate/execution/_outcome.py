"""``Outcome``: what the order path answers, with a fixed sentence for each ending.

The sentences are fixed (no terms, no upstream text, no secrets): the gateway shows them to
agents, the command line prints them. Reason codes are the policy's ``ReasonCode`` values,
the ledger's cap codes, and the guard's own below.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

from ordergate.core import command_hint, to_wire
from ordergate.ledger import FilingStatus
from ordergate.policy import (
    AccountState,
    PolicyConfig,
    ReasonCode,
    RecentOrders,
    Stage,
    Terms,
)
from ordergate.venues import ADV_SESSIONS

__all__ = [
    "APPROVAL_DECIDED",
    "APPROVAL_DENIED",
    "APPROVAL_EXCEEDED",
    "APPROVAL_EXPIRED",
    "APPROVAL_TERMS_ALTERED",
    "BROKER_CHECKS_FAILED",
    "BROKER_REFUSED",
    "REVIEW_UNANSWERED",
    "Outcome",
    "cooldown_figures",
    "pace_figures",
    "refusal_figures",
    "size_figures",
]

REVIEW_UNANSWERED = "review_unanswered"
"""The broker did not answer the review; nothing was placed."""
BROKER_CHECKS_FAILED = "broker_checks_failed"
"""The broker's own checks on the reviewed order failed."""
BROKER_REFUSED = "broker_refused"
"""The broker refused the review or the order (``Outcome.broker_code`` says why)."""
APPROVAL_EXPIRED = "approval_expired"
APPROVAL_TERMS_ALTERED = "approval_terms_altered"
APPROVAL_DENIED = "approval_denied"
APPROVAL_DECIDED = "approval_already_decided"
APPROVAL_EXCEEDED = "approval_exceeded"
"""The reviewed notional exceeds the estimate the owner approved by more than
``approval_slippage_pct``: the order is held for the owner again, at the reviewed notional."""
OUTSIDE_SESSION = "outside_session"  # the policy's ReasonCode.OUTSIDE_SESSION


def _elsewhen(instant: str) -> str:
    # Said to whoever filed: `ordergate order`, an agent, a gateway's client. The environment
    # variable moves the embedded sandbox of every command; the flag is serve's alone.
    serve = command_hint(f"serve --sandbox --sandbox-start {instant}")
    return (
        "To try the sandbox at another instant, start its market there: run the command again "
        f"with ORDERGATE_SANDBOX_START={instant} in its environment (for the gateway: "
        f"`{serve}`)."
    )


_A_TUESDAY_OPEN = "2026-12-01T15:00:00Z"

# Endings in which the order is not, and will not be, at the market.
_REFUSED = frozenset(
    {
        FilingStatus.REFUSED,
        FilingStatus.DENIED,
        FilingStatus.EXPIRED,
        FilingStatus.REJECTED,
        FilingStatus.FAILED,
        FilingStatus.NOT_PLACED,
    }
)

_SENTENCES = {
    FilingStatus.REFUSED: "Refused: {reasons}. Nothing was sent to the broker.",
    FilingStatus.PENDING_APPROVAL: (
        "Filed and waiting for the account owner's approval; nothing is sent until it is approved."
    ),
    FilingStatus.APPROVED: "Approved; the order is being reviewed and placed.",
    FilingStatus.DENIED: "Not placed: {reasons}.",
    FilingStatus.EXPIRED: "Not placed: the approval expired before anyone approved it.",
    FilingStatus.SUBMITTED: "Placed with the broker; fills are reconciled as they happen.",
    FilingStatus.AWAITING_BROKER_APPROVAL: (
        "Placed; the broker holds it for the account owner's approval in the Robinhood app."
    ),
    FilingStatus.UNANSWERED: (
        "The broker did not answer: the order may be live. Read your open orders before "
        "sending it again."
    ),
    FilingStatus.PARTIALLY_FILLED: "Placed and partly filled; the rest is still working.",
    FilingStatus.FILLED: "Placed and filled.",
    FilingStatus.CANCELLED: "Cancelled.",
    FilingStatus.REJECTED: "The broker refused the order: {reasons}. Nothing is live.",
    FilingStatus.FAILED: "Not placed: {reasons}. Nothing is live.",
    FilingStatus.NOT_PLACED: "Not placed: the broker never received the order.",
    FilingStatus.ACCEPTED: "Filed; the order is being reviewed and placed.",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where an order stands after the guard acted on it.

    ``reasons`` are the refusal's codes (empty when nothing was refused); ``stage`` is the
    policy stage that refused (``None`` when the policy did not); ``broker_code`` is the
    broker's own reason when it refused.
    """

    filing_id: UUID
    status: FilingStatus
    reasons: tuple[str, ...] = ()
    stage: Stage | None = None
    approval_id: UUID | None = None
    order_id: str | None = None
    broker_code: str | None = None
    next_open: datetime | None = None
    """For ``outside_session``: when the next session this order may trade in opens."""
    figures: tuple[str, ...] = ()
    """Fixed sentences giving a refusal's numbers (``pace_figures``), each naming its code."""

    @property
    def refused(self) -> bool:
        """The order is not at the market and never will be under this filing."""
        return self.status in _REFUSED

    @property
    def uncertain(self) -> bool:
        """The broker did not answer: the order may or may not be live."""
        return self.status is FilingStatus.UNANSWERED

    @property
    def message(self) -> str:
        reasons = ", ".join(self.reasons) if self.reasons else "no reason given"
        sentence = _SENTENCES[self.status].format(reasons=reasons)
        if OUTSIDE_SESSION in self.reasons:
            sentence += " " + _next_step(self.next_open)
        for figure in self.figures:
            sentence += " " + figure
        if APPROVAL_EXCEEDED in self.reasons:
            sentence = (
                "Held for the account owner's approval again: reviewed, the order costs more "
                "than the estimate approved. " + sentence
            )
        return sentence

    def as_json(self, *, mode: str) -> dict[str, Any]:
        """The outcome as the command line and the owner route show it (``mode``: what the
        guard ran in, e.g. ``paper``)."""
        return {
            "filing_id": str(self.filing_id),
            "status": self.status.value,
            "accepted": not self.refused and not self.uncertain,
            "refused": self.refused,
            "uncertain": self.uncertain,
            "reasons": list(self.reasons),
            "stage": None if self.stage is None else self.stage.value,
            "approval_id": None if self.approval_id is None else str(self.approval_id),
            "order_id": self.order_id,
            "broker_code": self.broker_code,
            **({"next_open": _iso(self.next_open)} if self.next_open is not None else {}),
            "message": self.message,
            "mode": mode,
        }


def _iso(instant: datetime) -> str:
    return instant.isoformat().replace("+00:00", "Z")


def _next_step(next_open: datetime | None) -> str:
    if next_open is None:
        elsewhen = _elsewhen(_A_TUESDAY_OPEN)
        return f"The calendar does not say when it next opens. {elsewhen}"
    from ordergate.calendar import NEW_YORK

    local = next_open.astimezone(NEW_YORK).strftime("%a %Y-%m-%d %H:%M New York")
    elsewhen = _elsewhen(_iso(next_open))
    return f"The next session it can trade in opens {_iso(next_open)} ({local}). {elsewhen}"


def refusal_figures(
    reasons: tuple[str, ...],
    state: AccountState,
    quantity: Decimal | None,
    policy: PolicyConfig,
    terms: Terms | None = None,
    limit_price: Decimal | None = None,
) -> tuple[str, ...]:
    """The numbers behind a policy refusal at either stage, one fixed sentence per code that
    has them (``money_figures``, ``pace_figures``, ``cooldown_figures``, ``size_figures``):
    what was counted or asked and the policy's limit. ``state`` is what the stage decided on;
    ``quantity`` the shares it weighed (the order's, else its terms'); ``terms`` the stage's
    priced terms (the estimate, or the review); ``limit_price`` the order's own limit."""
    return (
        *money_figures(reasons, terms, state, policy),
        *collar_figures(reasons, terms, limit_price, state, policy),
        *pace_figures(reasons, state.recent, policy),
        *cooldown_figures(reasons, state, policy),
        *size_figures(reasons, quantity, state.average_daily_volume, policy),
    )


_CENT = Decimal("0.01")


def _usd(amount: Decimal) -> str:
    return f"${to_wire(amount.quantize(_CENT))}"


def collar_figures(
    reasons: tuple[str, ...],
    terms: Terms | None,
    limit_price: Decimal | None,
    state: AccountState,
    policy: PolicyConfig,
) -> tuple[str, ...]:
    """The numbers behind a ``price_collar`` refusal: the price weighed (the order's limit,
    else its terms' price), the quote it was weighed against and the collar."""
    quote = state.quote
    if ReasonCode.PRICE_COLLAR not in reasons or quote is None:
        return ()
    price = limit_price if limit_price is not None else None if terms is None else terms.price
    if price is None:
        return ()
    sides = ", ".join(
        f"{name} {_usd(value)}"
        for name, value in (("bid", quote.bid), ("ask", quote.ask), ("last", quote.last))
        if value is not None
    )
    return (
        f"price_collar: the order's price {_usd(price)} against the quote ({sides}) "
        f"(limits.price_collar_bps = {policy.price_collar_bps}).",
    )


def money_figures(
    reasons: tuple[str, ...], terms: Terms | None, state: AccountState, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind a refusal by a money cap: the order's notional (``terms``, the
    stage's estimate or review) and what the cap weighed it against, each with the policy's
    key. A figure the stage did not have is left out (its code still names the refusal)."""
    if terms is None or terms.notional is None:
        return ()
    notional = terms.notional
    order = _usd(notional)
    figures: list[str] = []
    if ReasonCode.MAX_ORDER_USD in reasons:
        figures.append(
            f"max_order_usd: this order is {order} "
            f"(limits.max_order_usd = {_usd(policy.max_order_usd)})."
        )
    if ReasonCode.MAX_DAILY_USD in reasons and state.spent_24h is not None:
        figures.append(
            f"max_daily_usd: {_usd(state.spent_24h)} spent in the last 24 h, and this order is "
            f"{order} (limits.max_daily_usd = {_usd(policy.max_daily_usd)})."
        )
    if ReasonCode.INSUFFICIENT_BUYING_POWER in reasons and state.buying_power is not None:
        figures.append(
            f"insufficient_buying_power: this order is {order} with {_usd(terms.fees)} fees, "
            f"against {_usd(state.buying_power)} buying power"
            + ("." if state.cash is None else f" and {_usd(state.cash)} cash.")
        )
    if ReasonCode.MIN_CASH in reasons and state.cash is not None:
        figures.append(
            f"min_cash: {_usd(state.cash)} cash, and this order is {order} "
            f"(limits.min_cash_usd = {_usd(policy.min_cash_usd)})."
        )
    if ReasonCode.MAX_POSITION_PCT in reasons and state.equity is not None:
        figures.append(
            f"max_position_pct: this order is {order} on equity of {_usd(state.equity)} "
            f"(limits.max_position_pct = {to_wire(policy.max_position_pct)})."
        )
    return tuple(figures)


def pace_figures(
    reasons: tuple[str, ...], recent: RecentOrders | None, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind a ``duplicate_order`` or ``order_rate`` refusal: for each, a fixed
    sentence naming the code, what was counted and the policy's limit (nothing else)."""
    if recent is None:
        return ()
    figures: list[str] = []
    if ReasonCode.DUPLICATE_ORDER in reasons:
        window = policy.duplicate_window_s
        figures.append(
            f"duplicate_order: {recent.duplicates} order(s) with the same terms accepted from "
            f"you in the last {window} s (limits.duplicate_window_s = {window}); read "
            "gate_record for its outcome before sending it again."
        )
    if ReasonCode.ORDER_RATE in reasons:
        mine, cap = recent.identity_minute, policy.max_orders_per_minute
        if mine >= cap:
            figures.append(
                f"order_rate: {mine} orders accepted from you in the last minute "
                f"(limits.max_orders_per_minute = {cap}); wait before filing again."
            )
        account, cap = recent.account_minute, policy.max_account_orders_per_minute
        if account >= cap:
            figures.append(
                f"order_rate: {account} orders accepted for this account in the last minute "
                f"(limits.max_account_orders_per_minute = {cap}); wait before filing again."
            )
    return tuple(figures)


def size_figures(
    reasons: tuple[str, ...],
    quantity: Decimal | None,
    volume: Decimal | None,
    policy: PolicyConfig,
) -> tuple[str, ...]:
    """The numbers behind a ``size_vs_adv`` refusal: the cap in shares, the average daily
    volume it is a percent of, and the order's quantity when it named one."""
    pct = policy.max_adv_pct
    if ReasonCode.SIZE_VS_ADV not in reasons or volume is None or pct is None:
        return ()
    cap = volume * pct / 100
    asked = f"{to_wire(quantity)} shares" if quantity is not None else "the estimated quantity"
    return (
        f"size_vs_adv: {asked} is above {to_wire(cap)} shares, {to_wire(pct)} % of the "
        f"symbol's average daily volume of {to_wire(volume)} shares over its last "
        f"{ADV_SESSIONS} closed sessions (limits.max_adv_pct = {to_wire(pct)}); send less.",
    )


def cooldown_figures(
    reasons: tuple[str, ...], state: AccountState, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind a ``cooldown`` refusal: when a breaker was last found tripped and
    until when buys are refused, or how many of the filer's closed trades lost lately."""
    cooldown, now = state.cooldown, state.now
    if ReasonCode.COOLDOWN not in reasons or cooldown is None or now is None:
        return ()
    minutes = policy.cooldown_minutes
    tripped = cooldown.breaker_tripped_at
    if tripped is not None and now - tripped < policy.cooldown:
        return (
            f"cooldown: a breaker was last found tripped at {_iso(tripped)}; buys are refused "
            f"until {_iso(tripped + policy.cooldown)} (cooldown.minutes = {minutes}).",
        )
    since = now - policy.cooldown - policy.loss_window
    lost = sum(1 for closed in cooldown.losses if closed > since)
    return (
        f"cooldown: {lost} of your closed trades lost in the last "
        f"{minutes + policy.loss_window_minutes} minutes (cooldown.loss_streak = "
        f"{policy.loss_streak} within cooldown.loss_window_minutes = "
        f"{policy.loss_window_minutes}); buys are refused for cooldown.minutes = {minutes} "
        "after the loss that completed the streak.",
    )

"""``Outcome``: what the order path answers, with a fixed sentence for each ending.

The sentences are fixed (no terms, no upstream text, no secrets): the gateway shows them to
agents, the command line prints them. Reason codes are the policy's ``ReasonCode`` values,
the ledger's cap codes, and the guard's own below.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from ordergate.core import command_hint
from ordergate.ledger import FilingStatus
from ordergate.policy import Stage

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
    """Fixed sentences giving a refusal's numbers (``refusal_figures``), each naming its
    code."""

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

"""What the owner's authority raises.

::

    OwnerError (OrdergateError)
    ├── OwnerRefused        an owner act was refused: ``reason`` is a stable code
    └── EnrolmentError      the enrolment file is missing a part, unreadable or malformed

``OwnerRefused.reason`` is one of ``REASONS``; its message is a fixed sentence that never
repeats what was submitted.
"""

from __future__ import annotations

from ordergate.core import OrdergateError, command_hint

__all__ = [
    "BUSY",
    "CODE_MISSING",
    "CODE_REPLAYED",
    "CODE_SPENT",
    "CODE_WRONG",
    "LOCKED",
    "NOT_ENROLLED",
    "REASONS",
    "EnrolmentError",
    "OwnerError",
    "OwnerRefused",
]

NOT_ENROLLED = "owner_not_enrolled"
CODE_MISSING = "owner_code_required"
CODE_WRONG = "owner_code_wrong"
CODE_REPLAYED = "owner_code_replayed"
CODE_SPENT = "owner_code_spent"
LOCKED = "owner_locked"
BUSY = "owner_busy"

REASONS: dict[str, str] = {
    NOT_ENROLLED: "no owner is enrolled on this gateway",
    CODE_MISSING: "this is an owner act: give the owner code (a current code from the "
    "authenticator, or the passphrase)",
    CODE_WRONG: "the owner code is not right",
    CODE_REPLAYED: "that code was already used; wait for the next one",
    CODE_SPENT: "that code was typed for another act; wait for the next one",
    LOCKED: "owner acts are locked after too many wrong codes; try again later",
    BUSY: "too many owner codes are being checked at once; try again in a moment",
}


class OwnerError(OrdergateError):
    """Root of the owner package's errors."""

    code = "owner_error"


class OwnerRefused(OwnerError):
    """An owner act was refused; ``reason`` says why (one of ``REASONS``)."""

    def __init__(self, reason: str, *, detail: str = "") -> None:
        self.reason = reason
        self.code = reason
        message = REASONS[reason]
        if reason == NOT_ENROLLED:  # the command as the person types it, read at refusal
            message += f"; enrol with `{command_hint('owner init')}`"
        super().__init__(f"{message} ({detail})" if detail else message)


class EnrolmentError(OwnerError):
    """The enrolment cannot be read or is not usable."""

    code = "owner_enrolment"

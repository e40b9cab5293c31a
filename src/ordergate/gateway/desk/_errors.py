"""What the owner's desk answers when an act cannot be done: an HTTP status, a stable code and
a fixed sentence (never an echo of what was submitted)."""

from __future__ import annotations

from ordergate.core import OrdergateError
from ordergate.owner import (
    BUSY,
    CODE_MISSING,
    CODE_REPLAYED,
    CODE_WRONG,
    LOCKED,
    NOT_ENROLLED,
    OwnerRefused,
)

__all__ = ["DeskError", "refusal_status"]

_STATUS = {
    CODE_MISSING: 401,
    CODE_WRONG: 403,
    CODE_REPLAYED: 403,
    NOT_ENROLLED: 403,
    LOCKED: 423,
    BUSY: 503,
}


def refusal_status(refused: OwnerRefused) -> int:
    """The HTTP status an owner refusal answers with."""
    return _STATUS.get(refused.reason, 403)


class DeskError(OrdergateError):
    """An owner act that cannot be done: ``status``, ``code`` and a fixed sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status = status
        self.code = code
        self.message = message
        super().__init__(message)

    @classmethod
    def from_refusal(cls, refused: OwnerRefused) -> DeskError:
        return cls(refusal_status(refused), refused.reason, str(refused))

    def as_json(self) -> dict[str, object]:
        return {"error": {"code": self.code, "message": self.message}}

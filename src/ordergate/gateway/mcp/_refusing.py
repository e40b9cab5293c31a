"""The one refusal wrapper: how a tool handler refuses, and what a failure inside it answers.

A handler refuses by raising ``Refused`` with the result to answer (``refuse(code,
message)``); nothing it has not said was done has been done. A step that can fail for reasons
of its own (the record cannot be read, the broker does not answer) runs under ``step`` with
the ``Failure`` it answers then: the failure is logged by its type only (never its text,
which may hold a token or the upstream's words) and becomes that fixed refusal, or — for a
call that went to the broker — the broker failure's own fixed sentence (``failure_payload``).
``answering`` runs a handler and turns its ``Refused`` into the result, and anything else
that escapes (a bug) into ``GATEWAY_ERROR``: every new rule is a ``refuse`` or a ``step`` in
one handler, never another try/log/refuse block.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from ordergate.gateway.mcp._answers import failed, refusal
from ordergate.gateway.mcp._failures import failure_payload
from ordergate.mcpserve import Result, RpcError

__all__ = ["Failure", "Refused", "answering", "best_effort", "refuse", "step"]

logger = logging.getLogger("ordergate.gateway.mcp")

T = TypeVar("T")


class Refused(Exception):
    """A handler's refusal; ``result`` is the tool result that says so."""

    def __init__(self, result: dict[str, Any]) -> None:
        self.code: str = result["structuredContent"]["error"]["code"]
        super().__init__(self.code)
        self.result = result


def refuse(code: str, message: str) -> NoReturn:
    """Refuse the call with a fixed sentence and its stable code."""
    raise Refused(refusal(code, message))


@dataclass(frozen=True, slots=True)
class Failure:
    """What a step answers when it fails: ``code`` and ``message``, or with ``broker`` the
    broker failure's own sentence (``cancel``: one that says to read open orders).
    ``what`` names the step in the log; a broker's refusal is routine (``level`` info)."""

    what: str
    code: str = "GATEWAY_ERROR"
    message: str = ""
    broker: bool = False
    cancel: bool = False
    level: int = logging.WARNING

    def result(self, error: Exception) -> dict[str, Any]:
        if self.broker:
            return failed(failure_payload(error, cancel=self.cancel))
        return refusal(self.code, self.message)


async def step(awaitable: Awaitable[T], failure: Failure) -> T:
    """``await awaitable``; any failure but a refusal or a protocol error becomes
    ``failure``'s refusal."""
    try:
        return await awaitable
    except (Refused, RpcError):
        raise
    except Exception as error:  # fail closed, in a fixed sentence
        logger.log(failure.level, "%s failed: %s", failure.what, type(error).__name__)
        raise Refused(failure.result(error)) from None


async def best_effort(awaitable: Awaitable[None], what: str) -> None:
    """``await awaitable`` for a write whose failure must not change the answer (the call
    already went out): logged, never raised."""
    try:
        await awaitable
    except Exception as error:
        logger.warning("%s failed: %s", what, type(error).__name__)


UNEXPECTED = Failure(
    "tools/call",
    "GATEWAY_ERROR",
    "The gateway could not complete the call. If it was an order or a cancel, read "
    "gate_record and your open orders before sending it again.",
)


async def answering(handler: Awaitable[Result]) -> Result:
    """The handler's answer, or the refusal it raised; a protocol error passes; anything
    else is ``UNEXPECTED``."""
    try:
        return await step(handler, UNEXPECTED)
    except Refused as refused:
        return refused.result

"""What the gateway's tools answer, in the venue's envelope.

``{data, guide}`` as structured content and as text for an answer; ``{error: {code,
message}}`` with ``isError`` for a refusal. Decimal values go out as the JSON numbers they
were read from. Only plain words of what the upstream said pass (an order id, a reason
code): never its own text.
"""

from __future__ import annotations

import re
from typing import Any

from ordergate.execution import Outcome
from ordergate.gateway.mcp._failures import plain_code
from ordergate.mcpserve import (
    EncodedResult,
    dumps_decimal_numbers,
    encoded_tool_result,
    error_result,
    tool_result,
)

__all__ = [
    "FORWARD_GUIDE",
    "GATE_GUIDE",
    "ORDER_GUIDE",
    "answer",
    "failed",
    "forwarded",
    "order_result",
    "plain",
    "refusal",
    "sentence",
]

FORWARD_GUIDE = "Forwarded unchanged from the broker by the ordergate gateway."
ORDER_GUIDE = (
    "Filed on the owner's ledger under this connection, checked against the owner's policy "
    "and sent only as filed. gate_record lists your filings and their outcomes."
)
GATE_GUIDE = "Answered by the ordergate gateway itself."

_PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}")


def plain(text: object) -> str | None:
    """``text`` when it is a plain identifier safe to show, else ``None``."""
    return text if isinstance(text, str) and _PLAIN_ID.fullmatch(text) else None


def sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def refusal(code: str, message: str) -> dict[str, Any]:
    return error_result(code, message, dumps=dumps_decimal_numbers)


def answer(data: Any, guide: str) -> dict[str, Any]:
    return tool_result({"data": data, "guide": guide}, is_error=False, dumps=dumps_decimal_numbers)


def forwarded(data: Any) -> EncodedResult:
    """A forwarded answer: ``data`` under the gateway's guide, written once (the hot path:
    each read's payload is encoded one time, not twice)."""
    return encoded_tool_result(
        {"data": data, "guide": FORWARD_GUIDE}, is_error=False, dumps=dumps_decimal_numbers
    )


def failed(payload: dict[str, Any]) -> dict[str, Any]:
    """A forward's failure (``_failures.failure_payload``) as an ``isError`` result."""
    return tool_result(payload, is_error=True, dumps=dumps_decimal_numbers)


def order_result(outcome: Outcome, *, paper: bool) -> dict[str, Any]:
    """The filing's answer: its id, status, reasons and the guard's fixed sentence."""
    data: dict[str, Any] = {
        "filing_id": str(outcome.filing_id),
        "status": outcome.status.value,
        "reasons": list(outcome.reasons),
        "message": outcome.message,
        "paper": paper,
    }
    order_id = plain(outcome.order_id)
    if order_id is not None:
        data["order_id"] = order_id
    if outcome.approval_id is not None:
        data["approval_id"] = str(outcome.approval_id)
    broker_code = plain_code(outcome.broker_code)
    if broker_code is not None:
        data["broker_code"] = broker_code
    return tool_result(
        {"data": data, "guide": ORDER_GUIDE}, is_error=outcome.refused, dumps=dumps_decimal_numbers
    )

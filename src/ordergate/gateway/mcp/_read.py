"""Reads, reviews and enrolment links: forwarded unchanged on the connection's session.

The answer is the upstream's ``data`` under the gateway's guide; a failure is the broker
failure's fixed sentence (``_failures``), never the upstream's own text.
"""

from __future__ import annotations

import logging
from typing import Any

from ordergate.gateway.mcp._answers import FORWARD_GUIDE, answer
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._refusing import Failure, step

__all__ = ["forward"]

FORWARD_FAILED = Failure("forward", broker=True, level=logging.INFO)


async def forward(call: Call) -> dict[str, Any]:
    backend = call.desk.backend
    data = await step(
        backend.forward(call.connection_id, call.name, call.arguments), FORWARD_FAILED
    )
    return answer(data, FORWARD_GUIDE)

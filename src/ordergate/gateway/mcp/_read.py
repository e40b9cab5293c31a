"""Reads, reviews and enrolment links: forwarded unchanged on the connection's session — except
that in paper mode the account reads are the venue's engine's answers (``_paper``).

Live mode forwards every read. In paper mode, ``_paper.paper_entry`` says what a read is:
answered by the engine on the paper book (marked paper in the ``guide``), forwarded (market
data and account facts the book does not hold), or refused (an account read the engine cannot
answer: never sent to the real account).

A forwarded answer is the upstream's ``data`` under the gateway's guide; a failure is the
broker failure's fixed sentence (``_failures``), never the upstream's own text.
"""

from __future__ import annotations

import logging
from typing import Any

from ordergate.gateway.mcp._answers import forwarded
from ordergate.gateway.mcp._backend import GatewayBackend
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._paper import (
    ENGINE,
    REFUSE,
    on_book,
    paper_entry,
    paper_read,
    refuse_unanswerable,
)
from ordergate.gateway.mcp._refusing import Failure, step
from ordergate.mcpserve import Result

__all__ = ["forward", "forward_unchanged"]

FORWARD_FAILED = Failure("forward", broker=True, level=logging.INFO)


async def forward(call: Call) -> Result:
    backend = call.desk.backend
    guard = await step(backend.guard(call.connection_id), FORWARD_FAILED)
    if guard.paper:
        listing = call.listing
        entry = None if listing is None else listing.paper.get(call.name)
        if entry is None:
            entry = paper_entry(call.name, call.descriptor)
            if listing is not None:
                listing.paper[call.name] = entry
        entry = on_book(guard, call.name, entry)
        if entry == REFUSE:
            refuse_unanswerable(call.name)
        if entry == ENGINE:
            return await paper_read(guard, call.name, call.arguments)
    return await forward_unchanged(backend, call.connection_id, call.name, call.arguments)


async def forward_unchanged(
    backend: GatewayBackend, connection_id: str, name: str, arguments: dict[str, Any]
) -> Result:
    """The upstream's answer to the call, under the gateway's guide; a failure is the broker
    failure's fixed sentence."""
    data = await step(backend.forward(connection_id, name, arguments), FORWARD_FAILED)
    return forwarded(data)

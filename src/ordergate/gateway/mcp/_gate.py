"""The gateway's own tools: ``gate_how`` (what it does and the caller's limits),
``gate_record`` (the caller's own filings, grades and track record) and ``gate_disconnect``
(erase the connection — not for a caller token, which names a connection it does not own and
expires by itself)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ordergate.gateway.mcp._answers import GATE_GUIDE, answer
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._principal import Credential
from ordergate.gateway.mcp._profiles import profile_facts
from ordergate.gateway.mcp._record import how, record
from ordergate.gateway.mcp._refusing import Failure, refuse, step
from ordergate.record import grades_of, track_of
from ordergate.store import blocking

__all__ = ["GATE_HANDLERS"]

RECORD_UNREADABLE = Failure("reading the record", message="The gateway could not read its record.")
NOT_ERASED = Failure(
    "disconnect", message="The gateway could not erase this connection; try again, or revoke it."
)


async def gate_how(call: Call) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        guard = await call.guard()
        return await blocking(how, guard, call.identity, max_open=call.desk.max_open)

    data = await step(read(), RECORD_UNREADABLE)
    data["profile"] = profile_facts(call.profile)
    return answer(data, GATE_GUIDE)


async def gate_record(call: Call) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        guard = await call.desk.backend.guard(call.connection_id)
        data = await blocking(record, guard.ledger, call.identity, paper=guard.paper)
        # The graded record: the caller's own grades and track record, never another's; each
        # filing shown carries its own grade where it has one.
        grades = await blocking(grades_of, guard.ledger.engine, call.identity)
        by_filing = {grade["filing_id"]: grade for grade in grades}
        for filing in data["filings"]:
            filing["grade"] = by_filing.get(filing["filing_id"])
        data["grades"] = grades
        data["track_record"] = (
            await blocking(track_of, guard.ledger.engine, call.identity)
        ).as_json()
        return data

    return answer(await step(read(), RECORD_UNREADABLE), GATE_GUIDE)


async def gate_disconnect(call: Call) -> dict[str, Any]:
    if call.principal.credential is Credential.CALLER:
        refuse(
            "NOT_YOURS_TO_END",
            "A caller token cannot end the connection it acts on; it expires by itself.",
        )
    await step(call.desk.backend.disconnect(call.connection_id), NOT_ERASED)
    call.desk.catalog.forget(call.connection_id)
    data = {
        "disconnected": True,
        "message": "This connection is erased: its tokens no longer work and the gateway "
        "has forgotten its session. Connect again to continue.",
    }
    return answer(data, GATE_GUIDE)


GATE_HANDLERS: Mapping[str, Callable[[Call], Awaitable[dict[str, Any]]]] = {
    "gate_how": gate_how,
    "gate_record": gate_record,
    "gate_disconnect": gate_disconnect,
}

"""The tools a connection sees: the upstream's live list, kept ten minutes, plus the
gateway's own (``gate_how``, ``gate_record``, ``gate_disconnect``).

The equity order tool is found on the list by capability (``place_order``, the same
resolution the command line uses) and listed as the gateway serves it: its input schema
keeps only the fields a filing names, and its output schema is the gateway's filing result
(an MCP client checks results against the listed schema). Every other upstream tool is
listed as the upstream lists it, refused ones included: calling one gets the sentence why.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ordergate.core import Clock
from ordergate.discovery import ToolUnavailable, resolve
from ordergate.gateway.mcp._proposal import AGENT_KEY, filed_properties

__all__ = ["GATE_TOOLS", "ORDER_OUTPUT_SCHEMA", "Catalog", "Listing"]

_EMPTY_INPUT: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

GATE_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "gate_how",
        "description": (
            "What this gateway does and your limits: every equity order is filed on a ledger, "
            "checked against the owner's policy and placed only as filed; reads pass through; "
            "options, crypto, advanced orders and money transfers are refused. Returns the "
            "policy's caps and the last 24 hours' spend against them."
        ),
        "inputSchema": _EMPTY_INPUT,
        "annotations": {"readOnlyHint": True, "destructiveHint": False},
    },
    {
        "name": "gate_record",
        "description": (
            "Your own filings through this gateway, newest first, with their terms, outcomes "
            "(filed, refused, placed, filled, unanswered …), fills (price, quantity, fees) "
            "and grades, and your graded record: each filled placement graded a trading day on "
            "against SPY, in basis points."
        ),
        "inputSchema": _EMPTY_INPUT,
        "annotations": {"readOnlyHint": True, "destructiveHint": False},
    },
    {
        "name": "gate_disconnect",
        "description": (
            "Erase this connection: its tokens stop working at once and the gateway forgets "
            "its session. Connect again to continue."
        ),
        "inputSchema": _EMPTY_INPUT,
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    },
)

ORDER_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "data": {
            "type": "object",
            "properties": {
                "filing_id": {"type": "string"},
                "status": {"type": "string"},
                "reasons": {"type": "array", "items": {"type": "string"}},
                "message": {"type": "string"},
                "paper": {"type": "boolean"},
                "order_id": {"type": "string"},
                "approval_id": {"type": "string"},
                "broker_code": {"type": "string"},
            },
            "required": ["filing_id", "status", "reasons", "message", "paper"],
        },
        "guide": {"type": "string"},
    },
    "required": ["data", "guide"],
}

_ORDER_NOTE = (
    " Through the ordergate gateway: the order is filed on the record, checked against the "
    "owner's policy and placed only as filed; the result carries the filing id."
)


_AGENT_KEY_PROPERTY = {
    "type": "string",
    "format": "uuid",
    "description": (
        "Your own key for this order: a fresh UUID per order, the same one when you retry it. "
        "The gateway files an order once per key: a retry answers the first filing's outcome "
        "and places nothing again; a different order under a used key is refused "
        "ref_id_reused. The broker's ref_id is the filing's id."
    ),
}


def _as_served(descriptor: Mapping[str, Any]) -> dict[str, Any]:
    """The equity order tool as the gateway serves it."""
    served = copy.deepcopy(dict(descriptor))
    schema = served["inputSchema"]  # resolution found symbol and side among its properties
    keep = filed_properties(schema)
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k in keep}
    schema["properties"][AGENT_KEY] = _AGENT_KEY_PROPERTY
    if isinstance(schema.get("required"), list):
        schema["required"] = [name for name in schema["required"] if name in keep]
    served["outputSchema"] = ORDER_OUTPUT_SCHEMA
    served["description"] = str(served.get("description") or "").rstrip() + _ORDER_NOTE
    return served


@dataclass(frozen=True, slots=True)
class Listing:
    """One connection's upstream list, read at ``read_at``."""

    read_at: datetime
    by_name: Mapping[str, dict[str, Any]]
    order_tool: str | None
    served: tuple[dict[str, Any], ...]
    """What ``tools/list`` answers: the upstream's tools (the order tool as served) and the
    gateway's own."""
    decided: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What the gateway decided of each listed tool (its route, the permission it takes), by
    name: a pure function of this listing, so decided once per listing, not once a call."""
    paper: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What paper mode does with each listed tool (``_paper.paper_entry``), by name:
    as pure of the listing, and decided once per listing too."""


def _listing(tools: list[dict[str, Any]], read_at: datetime) -> Listing:
    upstream = tuple(tool for tool in tools if isinstance(tool.get("name"), str))
    try:
        order_tool: str | None = str(resolve("place_order", upstream)["name"])
    except ToolUnavailable:
        order_tool = None  # no equity order tool, or several look-alikes: none is wrapped
    own = {tool["name"] for tool in GATE_TOOLS}
    served = tuple(
        _as_served(tool) if tool["name"] == order_tool else tool
        for tool in upstream
        if tool["name"] not in own
    )
    return Listing(
        read_at=read_at,
        by_name={tool["name"]: tool for tool in upstream if tool["name"] not in own},
        order_tool=order_tool,
        served=(*served, *GATE_TOOLS),
    )


class Catalog:
    """Per-connection listings, each kept ``ttl`` on the injected clock."""

    def __init__(
        self,
        read: Callable[[str], Awaitable[list[dict[str, Any]]]],
        *,
        clock: Clock,
        ttl: timedelta = timedelta(minutes=10),
    ) -> None:
        self._read = read
        self._clock = clock
        self._ttl = ttl
        self._listings: dict[str, Listing] = {}

    def fresh(self, connection_id: str) -> Listing | None:
        """The connection's listing while it is under ``ttl`` old, else ``None`` (no read:
        a call's common case, answered without awaiting anything)."""
        cached = self._listings.get(connection_id)
        if cached is not None and self._clock.now() - cached.read_at < self._ttl:
            return cached
        return None

    async def listing(self, connection_id: str) -> Listing:
        """The connection's listing, read again once it is ``ttl`` old. Raises what the
        backend raises when the upstream list cannot be read."""
        cached = self.fresh(connection_id)
        if cached is not None:
            return cached
        now = self._clock.now()
        listing = _listing(await self._read(connection_id), now)
        self._listings[connection_id] = listing
        return listing

    def forget(self, connection_id: str) -> None:
        self._listings.pop(connection_id, None)

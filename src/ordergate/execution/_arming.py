"""Live arming: real orders only when the upstream has been read, is compatible, and the
person said so.

Live mode is armed only when all three hold; otherwise ordergate runs in paper and says why:

1. the policy says ``mode = "live"`` **and** ``real_money = true`` (the explicit real-money
   setting: live mode alone is not consent to real orders);
2. the upstream's ``tools/list`` has been read in this run (a listing from a file or an
   earlier day is not the server that will receive the orders);
3. the order path's tools in that listing have no *breaking* drift from the contract pinned
   in this ordergate (``ordergate.discovery.diff``): none removed, no input the order path
   sends now refused, no output it reads now missing. Additive and cosmetic changes arm.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ordergate.discovery import Change, Compat, Snapshot, SnapshotError, diff
from ordergate.inventory import load_inventory
from ordergate.policy import Mode, PolicyConfig

__all__ = ["ORDER_PATH_TOOLS", "Arming", "arm", "pinned_contract"]

ORDER_PATH_TOOLS = (
    "get_accounts",
    "get_portfolio",
    "get_equity_positions",
    "get_equity_orders",
    "get_equity_quotes",
    "get_equity_tradability",
    "review_equity_order",
    "place_equity_order",
    "cancel_equity_order",
)
"""Every tool the guard's live path calls."""


@dataclass(frozen=True, slots=True)
class Arming:
    """``live`` or not, and a sentence saying why; ``breaking`` lists the drift that
    stopped arming."""

    live: bool
    reason: str
    breaking: tuple[Change, ...] = field(default=())

    @property
    def mode(self) -> Mode:
        return Mode.LIVE if self.live else Mode.PAPER


@cache
def pinned_contract() -> Snapshot:
    """The order path's tools as this ordergate was built against them."""
    inventory = load_inventory()
    descriptors: list[dict[str, Any]] = []
    for name in ORDER_PATH_TOOLS:
        spec = inventory[name]
        descriptor: dict[str, Any] = {"name": name, "inputSchema": spec.input_schema}
        if spec.output_schema is not None:
            descriptor["outputSchema"] = spec.output_schema
        if spec.annotations is not None:
            descriptor["annotations"] = spec.annotations
        descriptors.append(descriptor)
    return Snapshot.from_listing(descriptors, captured_at=None, missing_description=None)


def arm(policy: PolicyConfig, *, tools: Sequence[Mapping[str, Any]] | None) -> Arming:
    """Decide the mode for this run. ``tools`` is the upstream's ``tools/list`` as read
    now, or ``None`` when it was not read."""
    if policy.mode is Mode.PAPER:
        return Arming(False, 'paper mode: the policy says mode = "paper"')
    if not policy.real_money:
        return Arming(
            False,
            "paper mode: live mode needs real_money = true in the policy as well",
        )
    if tools is None:
        return Arming(
            False, "paper mode: the upstream's tools/list was not read, so live cannot arm"
        )
    wanted = [tool for tool in tools if tool.get("name") in ORDER_PATH_TOOLS]
    try:
        live = Snapshot.from_listing(wanted, captured_at=None, missing_description=None)
    except SnapshotError:
        return Arming(False, "paper mode: the upstream's tools/list is malformed")
    pinned = pinned_contract()
    breaking = tuple(
        change
        for change in diff(pinned, live)
        if change.compat is Compat.BREAKING and change.path != "description"
    )
    if breaking:
        tools_named = ", ".join(sorted({change.tool for change in breaking}))
        return Arming(
            False,
            f"paper mode: the upstream's order tools changed incompatibly ({tools_named})",
            breaking,
        )
    return Arming(True, "live: real orders will be placed")

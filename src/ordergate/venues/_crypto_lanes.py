"""``CryptoLanes``: a venue's crypto lanes (the MCP's, the REST API's, or both) and the one
choice of a lane per filing.

The policy's ``crypto.route`` says where a crypto order goes:

- ``mcp`` / ``rest``: that lane, or a refusal (``crypto_lane_unavailable``) when the venue
  has none of that name (no Crypto Trading API key stored, say);
- ``auto``: the MCP lane when the MCP offers crypto orders to the account now
  (``mcp_offered``: discovery resolves ``crypto_place`` in the upstream's ``tools/list``),
  else the REST lane; a probe that cannot tell counts as not offered (the REST rail takes
  the order, or nothing does).

``choose`` is asked ONCE per filing, before it is filed; the filing records the lane's
``name`` and every later call for that order (review, place, lookup, poll, cancel) goes to
``named(name)``. So a readiness change between stage A and placement places on the lane
chosen at filing (or that lane refuses): one order is never placed on both.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType

from ordergate.venues._crypto import CryptoLane
from ordergate.venues._protocols import BrokerRefusal

__all__ = ["AUTO", "LANE_UNAVAILABLE", "MCP", "REST", "CryptoLanes"]

logger = logging.getLogger(__name__)

LANE_UNAVAILABLE = "crypto_lane_unavailable"
AUTO = "auto"
MCP = "mcp"
REST = "rest"


class CryptoLanes:
    """The venue's crypto lanes by name; ``mcp_offered`` tells whether the MCP offers crypto
    orders to the account now (``auto`` asks it once per filing; ``None``: never)."""

    def __init__(
        self,
        *lanes: CryptoLane,
        mcp_offered: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        if not lanes:
            raise ValueError("name at least one crypto lane")
        by_name = {lane.name: lane for lane in lanes}
        if len(by_name) != len(lanes):
            raise ValueError("two crypto lanes share a name")
        self._lanes = MappingProxyType(by_name)
        self._mcp_offered = mcp_offered

    @property
    def lanes(self) -> Mapping[str, CryptoLane]:
        return self._lanes

    def named(self, name: str) -> CryptoLane | None:
        """The lane a filing recorded (``None`` when this venue has no lane of that name)."""
        return self._lanes.get(name)

    async def choose(self, route: str) -> CryptoLane:
        """The lane a new filing goes to under ``route`` (``auto``, ``mcp`` or ``rest``; see
        the module rules). ``BrokerRefusal(LANE_UNAVAILABLE)`` when it leads to no lane."""
        if route == AUTO:
            mcp = self._lanes.get(MCP)
            if mcp is not None and await self._offered():
                return mcp
            rest = self._lanes.get(REST)
            if rest is not None:
                return rest
            raise BrokerRefusal(
                LANE_UNAVAILABLE,
                "the MCP does not offer crypto orders to the account and no Crypto Trading "
                "API key is configured (ordergate login --crypto-api)",
            )
        lane = self._lanes.get(route) if route in (MCP, REST) else None
        if lane is None:
            raise BrokerRefusal(
                LANE_UNAVAILABLE, f"crypto.route is {route!r} and this venue has no such lane"
            )
        return lane

    async def _offered(self) -> bool:
        if self._mcp_offered is None:
            return False
        try:
            return await self._mcp_offered()
        except Exception as error:
            # Cannot tell: not offered, so the REST rail (or nothing) takes the order.
            logger.warning("crypto readiness could not be read (%s)", type(error).__name__)
            return False

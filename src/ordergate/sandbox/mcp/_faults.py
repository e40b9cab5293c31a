"""The venue's fault knobs as the transport's hooks: latency, dropped connections, HTTP
errors, lost answers and cut-short SSE events, each counted down per request."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from ordergate.mcpserve import DROP

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["VenueFaults"]


class VenueFaults:
    """``TransportFaults`` over ``venue.faults`` (which the admin routes change live)."""

    def __init__(self, venue: Venue) -> None:
        self._venue = venue

    async def before(self) -> int | None:
        faults = self._venue.faults
        if faults.latency_ms:
            await anyio.sleep(faults.latency_ms / 1000)
        fire, faults.drop_before = faults.take(faults.drop_before)
        if fire:
            return DROP
        fire, faults.http_errors = faults.take(faults.http_errors)
        if fire:
            return faults.http_error_status
        return None

    def drop_answer(self) -> bool:
        faults = self._venue.faults
        fire, faults.drop_after = faults.take(faults.drop_after)
        return fire

    def malformed_sse(self) -> bool:
        faults = self._venue.faults
        fire, faults.malformed_sse = faults.take(faults.malformed_sse)
        return fire

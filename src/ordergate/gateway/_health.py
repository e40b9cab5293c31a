"""``/healthz`` and ``/readyz``: for a container's health check and a load balancer.

- ``GET /healthz``: the process is alive and its event loop answers. Nothing is read.
- ``GET /readyz``: the gateway can do its work: the ledger takes a write (a write transaction
  that changes nothing: on SQLite ``BEGIN IMMEDIATE`` takes the write lock, and on Postgres
  an ``UPDATE`` is refused by a read-only server or transaction), and the upstream's tool
  list can be read. A tool list read is remembered for ``upstream_ttl`` (a minute), so
  probing every few seconds does not spend the broker's rate limit; a failed read is not
  remembered. Where each connection keeps its own sealed upstream session there is no
  session to read the list with until someone connects, so only the ledger is checked.

Neither needs a token, and each says only ``ok`` / ``ready`` / ``not ready`` (200 or 503):
no version, no count, no name of what failed. The reason is logged on the gateway's side, by
exception type only. Like every route they sit behind the ``Host``/``Origin`` check
(DNS rebinding) and are not rate-limited per IP (a probe must not be refused by the limit it
does not spend).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import Engine, text
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ordergate.ledger import write_transaction
from ordergate.store import blocking

__all__ = ["HEALTH_PATH", "READY_PATH", "Readiness", "health_routes", "ledger_writable"]

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
_HEADERS = {"Cache-Control": "no-store"}


def ledger_writable(engine: Engine) -> None:
    """Raises unless the ledger takes a write now (nothing is changed)."""
    with write_transaction(engine) as connection:
        connection.execute(text("UPDATE locks SET name = name WHERE 1 = 0"))


class Readiness:
    """Whether the gateway is ready. ``ledger`` raises unless the ledger takes a write;
    ``upstream`` (``None``: not checked) raises unless the upstream's tool list is read; a
    success of it counts for ``upstream_ttl`` seconds of ``monotonic``."""

    def __init__(
        self,
        *,
        ledger: Callable[[], None],
        upstream: Callable[[], Awaitable[Any]] | None,
        upstream_ttl: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ledger = ledger
        self._upstream = upstream
        self._ttl = upstream_ttl
        self._monotonic = monotonic
        self._upstream_until: float | None = None

    async def problem(self) -> str | None:
        """What is not ready (for the log), or ``None`` when everything is."""
        try:
            await blocking(self._ledger)
        except Exception as error:
            return f"ledger not writable: {type(error).__name__}"
        if self._upstream is None:
            return None
        now = self._monotonic()
        if self._upstream_until is not None and now < self._upstream_until:
            return None
        try:
            await self._upstream()
        except Exception as error:
            self._upstream_until = None
            return f"upstream tool list unreadable: {type(error).__name__}"
        self._upstream_until = now + self._ttl
        return None


def health_routes(readiness: Readiness) -> list[Route]:
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"}, headers=_HEADERS)

    async def readyz(request: Request) -> JSONResponse:
        problem = await readiness.problem()
        if problem is None:
            return JSONResponse({"status": "ready"}, headers=_HEADERS)
        logger.warning("not ready: %s", problem)
        return JSONResponse({"status": "not ready"}, status_code=503, headers=_HEADERS)

    return [
        Route(HEALTH_PATH, healthz, methods=["GET"]),
        Route(READY_PATH, readyz, methods=["GET"]),
    ]

"""Per-connection call budgets for authenticated MCP traffic (``/mcp`` and ``/api/…``).

Each principal — an approved connection, or a caller token that can trade (each mint its
own) — has its own budget, so agents on one machine, all reaching the gateway from 127.0.0.1,
no longer share one per-IP allowance. Caller tokens that cannot trade need no owner code to
mint, so an agent can mint as many as it likes: they all spend one budget (per upstream
session they read through), and twelve of them drain the upstream no faster than one. What
the gateway answers itself (the handshake, ``ping``, the tool list's pages from its cache, its
own ``gate_*`` tools, paper reads of the paper book alone) spends a second, larger budget of
the principal (``local``: 20 a second, bursts of 60); only what goes upstream spends the one
sized to the broker.

The upstream budget's default is sized to what Robinhood itself tolerates: about 4 calls a
second sustained passed, ``RATE_LIMITED`` errors appeared at 8 a second. So each
connection may make ``rate`` requests a second on average with bursts of up to ``burst``
(defaults 4 and 8): an agent's first calls are never held back, and one that loops is
slowed to the pace the broker accepts before the broker refuses it.

The algorithm is GCRA (the generic cell rate algorithm, a token bucket kept as one
timestamp per key: the theoretical arrival time ``tat``). A request at ``now`` is admitted
when ``tat - now`` is at most ``(burst - 1) / rate``, and then ``tat`` moves one interval
(``1 / rate``) on from ``max(tat, now)``; a refused one changes nothing and is told exactly
how long until it would be admitted. The time is the clock the gateway's limits are given.

``MemoryBudget`` keeps the timestamps in this process; ``RedisBudget`` keeps them in Redis
(one key per principal, updated by one Lua script, so every replica sharing the Redis shares
each budget; the key expires once the budget is full again). A Redis that cannot be reached
refuses the request (``BudgetUnavailable``): the limit is never silently off. Keys carry the
principal's identity on the record (a connection's is its id hashed), never a token.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from ordergate.core import Clock
from ordergate.gateway._config import RateLimits
from ordergate.gateway._limits import RedisCounter, WindowCounter
from ordergate.gateway._owner import digest_in
from ordergate.gateway.mcp import Credential, Principal
from ordergate.mcpserve import Admit

__all__ = [
    "UNAVAILABLE_WAIT_S",
    "AnsweredHere",
    "BudgetUnavailable",
    "CallBudget",
    "MemoryBudget",
    "RedisBudget",
    "admission",
    "budget_for",
]

logger = logging.getLogger(__name__)

UNAVAILABLE_WAIT_S = 1.0
"""What a request is told to wait when the budget's store cannot be reached (it is refused)."""

_MAX_KEYS = 65536


AnsweredHere = Callable[[Principal, str, object], bool]
"""Whether a request (its principal, JSON-RPC method and params) is answered by the gateway
itself, without a call to the upstream."""


class BudgetUnavailable(Exception):
    """The budget's store cannot be reached: the request is refused."""


class CallBudget(Protocol):
    async def take(self, key: str, now: datetime) -> float | None:
        """Spend one call of ``key``'s budget at ``now``: ``None`` when admitted, else the
        seconds until a call would be. Raises ``BudgetUnavailable``."""
        ...


def _check(rate: float, burst: int) -> None:
    if not rate > 0 or not math.isfinite(rate):
        raise ValueError("rate must be a positive number of calls a second")
    if burst < 1:
        raise ValueError("burst must be at least one call")


class MemoryBudget:
    """GCRA in this process (one gateway, no replicas)."""

    def __init__(self, *, rate: float, burst: int) -> None:
        _check(rate, burst)
        self._interval = 1.0 / rate
        self._tolerance = (burst - 1) * self._interval
        self._tats: dict[str, float] = {}

    async def take(self, key: str, now: datetime) -> float | None:
        at = now.timestamp()
        tat = max(self._tats.get(key, at), at)
        wait = tat - at - self._tolerance
        if wait > 0:
            return wait
        if len(self._tats) >= _MAX_KEYS:
            # Bounded memory: a key whose budget is full again is the same as a new one.
            self._tats = {k: t for k, t in self._tats.items() if t > at}
        self._tats[key] = tat + self._interval
        return None


# KEYS[1]: the budget's key. ARGV: now, interval, tolerance (integer milliseconds).
# Returns 0 when admitted, else the milliseconds to wait.
_GCRA = """
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat - now - tolerance
if wait > 0 then return wait end
local next_tat = tat + interval
redis.call('SET', KEYS[1], next_tat, 'PX', next_tat - now + 1000)
return 0
"""


class RedisBudget:
    """GCRA in Redis, shared by every replica."""

    def __init__(
        self, client: Any, *, rate: float, burst: int, prefix: str = "ordergate:budget:"
    ) -> None:
        _check(rate, burst)
        self._interval = max(1, round(1000 / rate))
        self._tolerance = (burst - 1) * self._interval
        self._prefix = prefix
        self._script = client.register_script(_GCRA)

    async def take(self, key: str, now: datetime) -> float | None:
        at = int(now.timestamp() * 1000)
        try:
            wait = await self._script(
                keys=[self._prefix + key], args=[at, self._interval, self._tolerance]
            )
        except Exception as error:
            raise BudgetUnavailable(type(error).__name__) from None
        return int(wait) / 1000 if int(wait) > 0 else None


def budget_for(limits: RateLimits, counter: WindowCounter, *, local: bool = False) -> CallBudget:
    """The per-connection budget beside the per-IP ``counter``: in the same Redis when the
    counter is shared, else in memory. ``local``: the budget of what the gateway answers
    itself (``local`` and ``local_burst``), else of what it forwards (``mcp``, ``burst``)."""
    rate, burst = (limits.local, limits.local_burst) if local else (limits.mcp, limits.burst)
    if isinstance(counter, RedisCounter):
        prefix = "ordergate:budget-local:" if local else "ordergate:budget:"
        return RedisBudget(counter.client, rate=rate, burst=burst, prefix=prefix)
    return MemoryBudget(rate=rate, burst=burst)


READ_ONLY_CALLERS = "caller-read-only"
"""The key every caller token that cannot trade shares (beside its upstream session's)."""


def budget_key(principal: Principal, *, trades: bool = True) -> str:
    """Whose budget a request spends: its credential's kind and its identity on the record (a
    connection's id hashed; a caller's name, profile and mint, and the connection it is bound
    to, hashed). A caller token that cannot trade (``trades`` false) spends the one budget of
    every such token on its upstream session: the owner's, or its bound connection's."""
    if principal.credential is Credential.CALLER and not trades:
        return f"{READ_ONLY_CALLERS}:{digest_in(principal.identity) or 'owner'}"
    return f"{principal.credential}:{principal.identity}"


def admission(
    budget: CallBudget,
    *,
    clock: Clock,
    on_refusal: Callable[[str], None] | None = None,
    local: tuple[CallBudget, AnsweredHere] | None = None,
    trades: Callable[[str | None], bool] | None = None,
) -> Admit[Principal]:
    """The MCP endpoint's (and the broker's) ``admit``: one call of the principal's budget.
    With ``local`` (a budget and the test of a request the gateway answers itself), such a
    request spends that budget instead, so a client's start (the handshake, the listing's
    pages) and the gateway's own tools never spend the pace the upstream allows.
    ``trades(profile)``: whether a profile can place or cancel (a caller token under one that
    cannot spends the shared read-only budgets); unset, every principal has its own."""

    async def admit(
        principal: Principal, method: str | None = None, params: object = None
    ) -> float | None:
        spent = budget
        if local is not None and method is not None and local[1](principal, method, params):
            spent = local[0]
        own = trades is None or trades(principal.profile)
        try:
            wait = await spent.take(budget_key(principal, trades=own), clock.now())
        except BudgetUnavailable as error:  # refuse, never unlimited
            logger.warning("rate-limit store unavailable: %s", error)
            wait = UNAVAILABLE_WAIT_S
        if wait is not None and on_refusal is not None:
            on_refusal("rate_limited")
        return wait

    return admit

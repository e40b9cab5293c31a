"""One ``tools/call`` as its handler sees it: who makes it, what it names, what it may use.

``Call`` is built once per call by ``GatewayMethods`` from the request's ``Principal``: its
profile resolved by name, and for an upstream tool the connection's listing and the tool's
descriptor. ``Desk`` holds what every call shares: the backend, the catalog, the per-identity
locks, the account locks shared with other replicas, and the open-filings cap.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio

from ordergate.execution import Guard
from ordergate.gateway._replica_locks import ReplicaLocks
from ordergate.gateway.mcp._backend import GatewayBackend
from ordergate.gateway.mcp._catalog import Catalog, Listing
from ordergate.gateway.mcp._principal import Principal
from ordergate.profiles import PolicyOverrides, Profile

__all__ = ["Call", "Desk"]


@dataclass(slots=True)
class Desk:
    """What every call shares."""

    backend: GatewayBackend
    catalog: Catalog
    max_open: int
    locks: dict[str, anyio.Lock] = field(default_factory=dict)
    replicas: ReplicaLocks | None = None
    """The account locks every replica on the ledger shares (``None``: this process only)."""

    def lock(self, identity: str) -> anyio.Lock:
        """The lock that orders one identity's filings one at a time."""
        return self.locks.setdefault(identity, anyio.Lock())

    @asynccontextmanager
    async def account_turn(self, account: str) -> AsyncIterator[None]:
        """One order at a time on ``account`` across every replica (``ReplicaLocks``)."""
        if self.replicas is None:
            yield
            return
        async with self.replicas.account(account):
            yield


@dataclass(frozen=True, slots=True)
class Call:
    """``profile``: the principal's, ``None`` when this gateway does not define it.
    ``listing`` and ``descriptor``: the connection's upstream list and the called tool's
    entry on it (``None`` for the gateway's own tools)."""

    desk: Desk
    principal: Principal
    profile: Profile | None
    name: str
    arguments: dict[str, Any]
    listing: Listing | None = None
    descriptor: Mapping[str, Any] | None = None

    @property
    def connection_id(self) -> str:
        return self.principal.connection_id

    @property
    def identity(self) -> str:
        return self.principal.identity

    async def guard(self) -> Guard:
        """The connection's guard under its profile's policy overrides (which only tighten)."""
        guard = await self.desk.backend.guard(self.connection_id)
        profile = self.profile
        if profile is None or profile.overrides == PolicyOverrides():
            return guard
        return guard.narrowed(profile.overrides.apply(guard.policy))

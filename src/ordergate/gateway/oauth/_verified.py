"""``VerifiedCache``: grants the gateway verified recently, so most MCP requests read nothing.

``Grants.access_grant`` keeps what it read here for ``verified_ttl`` (2 s), measured by
``ordergate bench gateway``: the read cost ~400 µs of the event loop on every MCP request, a
hit costs a few microseconds. Rules:

- Only grants are kept, never refusals, by the token's SHA-256 (the token itself is never
  held); at most ``CACHE_SIZE``, the oldest dropped first.
- Every hit is checked again by the injected clock: an expired token is refused at its expiry
  instant, as the read would refuse it.
- Every write in this process that can end a grant empties the cache once it has committed:
  ``exchange_code`` (a replay ends the connection), ``refresh`` and ``revoke`` in ``Grants``,
  ``mark_dead``, ``erase`` and ``erase_idle`` in the store (``forget_verified``). A read that
  began before such a write is not kept (``generation``), so once an ending has returned, no
  request in this process is served on a token it ended.
- A write by another process or replica (another gateway, ``ordergate`` on the command line)
  is not seen here: a grant it ends may still be honoured here for at most ``verified_ttl``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime, timedelta

from ordergate.gateway.oauth._records import Grant

__all__ = ["CACHE_SIZE", "VerifiedCache"]

CACHE_SIZE = 4096


class VerifiedCache:
    """Grants read recently, by token SHA-256; see the module docstring for the rules."""

    def __init__(self, ttl: timedelta) -> None:
        self._ttl = ttl
        self._lock = threading.Lock()
        self._grants: OrderedDict[str, tuple[Grant, datetime]] = OrderedDict()
        self.generation = 0

    def get(self, digest: str, now: datetime) -> Grant | None:
        entry = self._grants.get(digest)
        if entry is None:
            return None
        grant, kept_until = entry
        if now < kept_until and now < grant.expires_at:
            return grant
        with self._lock:
            if self._grants.get(digest) is entry:
                del self._grants[digest]
        return None

    def put(self, digest: str, grant: Grant, now: datetime, generation: int) -> None:
        """Keep ``grant``, unless the cache was emptied since its read began (``generation``):
        that read may have seen a row a write was about to end."""
        if self._ttl <= timedelta(0):
            return
        with self._lock:
            if generation != self.generation:
                return
            self._grants[digest] = (grant, now + self._ttl)
            while len(self._grants) > CACHE_SIZE:
                self._grants.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self.generation += 1
            self._grants.clear()

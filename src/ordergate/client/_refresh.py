"""Refreshing the token set without ever spending one refresh token twice.

Robinhood rotates refresh tokens: each one works once. Several processes may share one token
file, so a refresh happens under the file's inter-process lock, and starts by re-reading the
file: if another process has rotated the set since we read it, its new set is ours too and
nothing is sent — unless that set was issued for another server (someone logged in elsewhere
meanwhile), which is refused rather than sent where ours was going. Otherwise the refresh
grant is sent and the new set written (atomically) before the lock is released.
"""

from __future__ import annotations

import logging
from pathlib import Path

import httpx2

from ordergate.client._errors import LoginRequired
from ordergate.client._lock import token_file_lock
from ordergate.client._rfc6749 import request_tokens
from ordergate.client._tokens import TokenSet, read_token_file, write_token_file
from ordergate.core import Clock

__all__ = ["Refresher"]

logger = logging.getLogger(__name__)


class Refresher:
    """``await refresher(ours)``: a fresh token set for the stale one we hold."""

    def __init__(
        self,
        *,
        token_file: Path,
        http: httpx2.AsyncClient,
        clock: Clock,
        lock_timeout_s: float = 30.0,
    ) -> None:
        self._token_file = token_file
        self._http = http
        self._clock = clock
        self._lock_timeout_s = lock_timeout_s

    async def __call__(self, ours: TokenSet) -> TokenSet:
        """Raises ``LoginRequired`` when the set cannot be refreshed (no refresh token, or the
        server refuses it), ``TransportError`` when the token endpoint does not answer."""
        async with token_file_lock(self._token_file, timeout_s=self._lock_timeout_s):
            on_disk = read_token_file(self._token_file)
            if on_disk.server != ours.server:
                raise LoginRequired(
                    f"the token file {self._token_file} now holds a sign-in to "
                    f"{on_disk.server or 'an unrecorded server'}, not {ours.server}"
                )
            if (on_disk.refresh_token, on_disk.access_token) != (
                ours.refresh_token,
                ours.access_token,
            ):
                logger.debug("another process refreshed the tokens; using its set")
                return on_disk
            fresh = await self._grant(ours)
            write_token_file(self._token_file, fresh)
            logger.info("refreshed the Robinhood access token")
            return fresh

    async def _grant(self, ours: TokenSet) -> TokenSet:
        if ours.refresh_token is None:
            raise LoginRequired("the access token has expired and there is no refresh token")
        if ours.token_endpoint is None or ours.client_id is None:
            raise LoginRequired("the token file does not say where to refresh the tokens")
        form = {
            "grant_type": "refresh_token",
            "refresh_token": ours.refresh_token.reveal(),
            "client_id": ours.client_id,
        }
        if ours.resource is not None:
            form["resource"] = ours.resource  # RFC 8707 §2
        granted = await request_tokens(self._http, ours.token_endpoint, form, now=self._clock.now())
        return ours.rotated(
            access_token=granted.access_token,
            refresh_token=granted.refresh_token,
            expires_at=granted.expires_at,
        )

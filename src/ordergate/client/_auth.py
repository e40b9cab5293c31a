"""``TokenAuth``: the ``httpx2.Auth`` that signs every venue request with the bearer token.

It refreshes the set shortly before it expires (by the injected clock) and once after a 401,
then retries that request once. Tasks of one client share one refresh (an ``anyio.Lock``);
processes sharing the token file share one through ``Refresher``'s file lock.

The token is attached only to requests for the origin of the server it was issued for (the
one recorded in the set it starts with); a request anywhere else raises ``WrongServer`` and
carries no ``Authorization`` header. A set that records no server is not checked here
(``connect`` refuses one read from a token file before any request).

A refresh that fails is remembered in ``failure`` so ``connect`` can fail closed with it even
when the failure surfaced inside the MCP SDK, which reports it as its own error.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from datetime import timedelta
from typing import Protocol, TypeVar

import anyio
import httpx2

from ordergate.client._errors import LoginRequired
from ordergate.client._servers import WrongServer, origin_of, shown_url
from ordergate.client._tokens import TokenSet
from ordergate.core import Clock

__all__ = ["REFRESH_MARGIN", "Refresh", "TokenAuth"]

REFRESH_MARGIN = timedelta(seconds=60)

Refresh = Callable[[TokenSet], Awaitable[TokenSet]]


class _Answered(Protocol):
    @property
    def status_code(self) -> int: ...


_A = TypeVar("_A", bound=_Answered)


class TokenAuth(httpx2.Auth):
    def __init__(
        self,
        tokens: TokenSet,
        *,
        refresh: Refresh,
        clock: Clock,
        margin: timedelta = REFRESH_MARGIN,
    ) -> None:
        self._tokens = tokens
        self._server = tokens.server
        self._origin = tokens.origin
        self._refresh = refresh
        self._clock = clock
        self._margin = margin
        self._lock = anyio.Lock()
        self.failure: LoginRequired | None = None
        self._checked: str | None = None

    def __repr__(self) -> str:
        return "TokenAuth()"

    async def fresh_tokens(self) -> TokenSet:
        """The current set, refreshed first if it expires within the margin."""
        tokens = self._tokens
        if not tokens.expires_within(self._clock.now(), self._margin):
            return tokens
        async with self._lock:
            if self._tokens is not tokens:
                return self._tokens  # another task refreshed while we waited
            return await self._refreshed(tokens)

    async def _after_unauthorized(self, used: TokenSet) -> TokenSet:
        async with self._lock:
            if self._tokens is not used:
                return self._tokens
            return await self._refreshed(used)

    async def _refreshed(self, stale: TokenSet) -> TokenSet:
        try:
            self._tokens = await self._refresh(stale)
        except LoginRequired as error:
            self.failure = error
            raise
        return self._tokens

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        self._check_destination(request)
        tokens = await self.fresh_tokens()
        request.headers["authorization"] = f"Bearer {tokens.access_token.reveal()}"
        response = yield request
        if response.status_code != 401:
            return
        tokens = await self._after_unauthorized(tokens)
        request.headers["authorization"] = f"Bearer {tokens.access_token.reveal()}"
        response = yield request
        if response.status_code == 401:
            self.failure = LoginRequired("Robinhood refused the refreshed access token")
            raise self.failure

    async def signed(self, url: str, send: Callable[[str], Awaitable[_A]]) -> _A:
        """``send(authorization)``'s answer, the flow above without ``httpx2``: the same
        destination check, the fresh token, one refresh and one retry after a 401 (the lean
        path, ``ordergate.client._wire``). ``_A`` has ``status_code``."""
        self._check_url(url)
        tokens = await self.fresh_tokens()
        answer = await send(f"Bearer {tokens.access_token.reveal()}")
        if answer.status_code != 401:
            return answer
        tokens = await self._after_unauthorized(tokens)
        answer = await send(f"Bearer {tokens.access_token.reveal()}")
        if answer.status_code == 401:
            self.failure = LoginRequired("Robinhood refused the refreshed access token")
            raise self.failure
        return answer

    def _check_destination(self, request: httpx2.Request) -> None:
        self._check_url(str(request.url))

    def _check_url(self, url: str) -> None:
        if self._server is None or self._origin is None or url == self._checked:
            return
        if origin_of(url) != self._origin:
            raise WrongServer(self._server, shown_url(url))
        self._checked = url  # the lean path asks for one URL on every call

    def sync_auth_flow(
        self, request: httpx2.Request
    ) -> Generator[httpx2.Request, httpx2.Response, None]:
        raise TypeError("TokenAuth refreshes asynchronously: use it with httpx2.AsyncClient")

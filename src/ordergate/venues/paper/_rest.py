"""``paper_rest``: the Crypto Trading REST lane on paper — the live REST lane over a transport
that never leaves the process.

The lane is the live one (``RestCrypto`` over a ``CryptoRest`` client: its requests, signing,
paging and the reading of every answer), and what answers is the sandbox's REST venue
(``ordergate.sandbox.rest_routes``) served on the paper book's own venue: the engine's crypto
desk, the one the MCP crypto tools of the same ``PaperCaller`` answer from. So both lanes
trade one book, and an order routed to REST is placed, read and cancelled by the code that
does it live.

Each request's work runs in the caller's turn on the engine (``PaperCaller.on_book``: the
engine is not thread-safe), once the pairs the request names are priced from the upstream
(``named_pairs``), in the book's transaction. Nothing reaches a network: the client's only
transport is ``BookTransport`` (an ASGI app in process), its origin ``PAPER_ORIGIN`` is a
name that never resolves, and the key it signs with is made here for this venue alone and
never leaves memory. The client is not held to the API's rate (``Unmetered``). A request
the engine fails to answer is a 500 (no answer: an order it was placing is looked up by its
``client_order_id``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from ordergate.client.crypto_rest import ApiKey, CryptoRest, TokenBucket
from ordergate.core import Clock, Secret
from ordergate.sandbox import RestKeys, named_pairs, rest_routes
from ordergate.venues.paper._caller import PaperCaller
from ordergate.venues.robinhood import RestCrypto

__all__ = ["PAPER_ORIGIN", "BookTransport", "Unmetered", "paper_rest"]

PAPER_ORIGIN: Final = "http://crypto-rest.paper.invalid"
"""The paper REST client's origin: ``.invalid`` never resolves (RFC 2606), so even a request
sent past ``BookTransport`` could reach no one."""


class Unmetered(TokenBucket):
    """A bucket that never runs dry: the paper REST venue is in process, with no rate of the
    API's to keep to, and a paper run's pace must not hang on the wall clock (live, the
    client holds itself to 100 requests a minute)."""

    __slots__ = ()

    def take(self) -> float:
        return 0.0


class BookTransport(httpx2.AsyncBaseTransport):
    """Answers every request with the REST venue's routes on ``caller``'s paper book (built
    once the book is open), each request's work in the caller's turn; ``now_s`` is the clock
    the signed timestamps are held to."""

    def __init__(self, caller: PaperCaller, keys: RestKeys, *, now_s: Callable[[], float]) -> None:
        self._caller = caller
        self._keys = keys
        self._now_s = now_s
        self._app: httpx2.ASGITransport | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self._app is None:
            engine = await self._caller.engine()
            routes = rest_routes(engine.venue, self._keys, now_s=self._now_s, run=self._run)
            self._app = httpx2.ASGITransport(
                app=Starlette(routes=routes), raise_app_exceptions=False
            )
        return await self._app.handle_async_request(request)

    async def _run(self, request: Request, body: str, work: Callable[[], Response]) -> Response:
        return await self._caller.on_book(
            work, pairs=named_pairs(request, body), moves=request.method == "POST"
        )


def paper_rest(caller: PaperCaller, *, clock: Clock) -> RestCrypto:
    """The REST lane on ``caller``'s paper book, signing with a key made for it now."""
    keys = RestKeys()
    issued = keys.register(None)  # a key pair made here: its private key is answered once
    key = ApiKey(Secret(issued["api_key"]), Secret(issued["private_key"]))

    def now_s() -> float:
        return clock.now().timestamp()

    rest = CryptoRest(
        key=key,
        base_url=PAPER_ORIGIN,
        transport=BookTransport(caller, keys, now_s=now_s),
        now=now_s,
        bucket=Unmetered(now_s),
    )
    return RestCrypto(rest)

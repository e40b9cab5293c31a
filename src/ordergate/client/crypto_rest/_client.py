"""``CryptoRest``: a typed async client of Robinhood's Crypto Trading REST API.

::

    async with CryptoRest(key=read_key_file(default_key_file())) as rest:
        account = await rest.account()
        quotes = await rest.best_bid_ask("BTC-USD")

Every request is signed (``_signing``), waits its turn in the client's token bucket
(``_bucket``: 100 a minute, bursts of 300) before it is sent, and fails as the typed client
fails (``ordergate.client``'s tree):

- ``TransportError``: no answer (for ``place_order``: the order may be live, look it up by
  its ``client_order_id``);
- ``BusinessError``: the venue refused the request (400/404/422; ``code`` is the answer's
  ``type``, ``field`` its ``attr``);
- ``HTTPStatusError``: any other status, 401/403 (the key or the signature) and 429
  included; a 429 also empties the bucket, so the next request waits;
- ``ResponseParseError``: an answer that is not the documented shape, naming the field;
- ``RateLimitWait``: the bucket would make a request wait longer than ``max_wait_s``;
- ``PaginationError``: a listing with more than ``max_pages`` pages, or a ``next`` that
  repeats (``walk_pages``), or that points at another origin.

Listings follow their ``next`` URLs to the end, bounded by ``max_pages``. No error ever
carries the key.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from decimal import Decimal
from types import TracebackType
from typing import Any, Literal, Self, TypeVar
from urllib.parse import urlencode, urlsplit

import anyio
import httpx2
from pydantic import BaseModel

from ordergate.client._errors import (
    BusinessError,
    HTTPStatusError,
    ResponseParseError,
    TransportError,
)
from ordergate.client._models import parse_model
from ordergate.client._pages import MAX_PAGES, PaginationError, walk_pages
from ordergate.client.crypto_rest._bucket import TokenBucket
from ordergate.client.crypto_rest._models import (
    RestAccount,
    RestBestBidAsk,
    RestEstimatedPrice,
    RestHolding,
    RestOrder,
    RestPage,
    RestTradingPair,
)
from ordergate.client.crypto_rest._requests import RestOrderRequest
from ordergate.client.crypto_rest._signing import ApiKey
from ordergate.core import ToolError, to_wire

__all__ = ["DEFAULT_REST_URL", "CryptoRest", "RateLimitWait"]

DEFAULT_REST_URL = "https://trading.robinhood.com"
TRADING = "/api/v1/crypto/trading"
MARKETDATA = "/api/v1/crypto/marketdata"
_REFUSALS = frozenset({400, 404, 422})

M = TypeVar("M", bound=BaseModel)


class RateLimitWait(ToolError):
    """The client's bucket would hold this request longer than it may wait."""

    code = "rate_limited"


def _query(path: str, params: Sequence[tuple[str, str]]) -> str:
    return f"{path}?{urlencode(params)}" if params else path


class CryptoRest:
    """An ``async with`` resource over one HTTP connection pool to ``base_url``.

    ``transport`` replaces the network (tests run in-process with ``httpx2.ASGITransport``);
    ``now`` is the wall clock of the ``x-timestamp`` (Unix seconds); ``monotonic`` and
    ``sleep`` drive the bucket's waits.
    """

    def __init__(
        self,
        *,
        key: ApiKey,
        base_url: str = DEFAULT_REST_URL,
        transport: httpx2.AsyncBaseTransport | None = None,
        now: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        bucket: TokenBucket | None = None,
        timeout_s: float = 10.0,
        max_wait_s: float = 60.0,
        max_pages: int = MAX_PAGES,
    ) -> None:
        split = urlsplit(base_url)
        if split.scheme not in ("http", "https") or not split.netloc:
            raise ValueError("base_url must be an http(s) origin")
        self._origin = f"{split.scheme}://{split.netloc}"
        self._key = key
        self._now = now
        self._sleep = sleep
        self.bucket = bucket or TokenBucket(monotonic)
        self._max_wait_s = max_wait_s
        self._max_pages = max_pages
        self._http = httpx2.AsyncClient(
            transport=transport, timeout=timeout_s, follow_redirects=False, trust_env=False
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def __repr__(self) -> str:
        return f"CryptoRest(origin={self._origin!r})"

    @property
    def origin(self) -> str:
        """Where requests go (``scheme://host[:port]``)."""
        return self._origin

    # -- the endpoints ----------------------------------------------------------------------

    async def account(self) -> RestAccount:
        """The crypto trading account: number, status, buying power."""
        answer = await self._send("GET", f"{TRADING}/accounts/", tool="accounts")
        return parse_model(RestAccount, answer, tool="accounts")

    async def holdings(self, *asset_codes: str) -> list[RestHolding]:
        """Every holding (or those of ``asset_codes``), all pages."""
        params = [("asset_code", code) for code in asset_codes]
        return await self._listing(f"{TRADING}/holdings/", params, RestHolding, "holdings")

    async def trading_pairs(self, *symbols: str) -> list[RestTradingPair]:
        """Every trading pair (or those of ``symbols``), with its increments and size bounds."""
        params = [("symbol", symbol) for symbol in symbols]
        return await self._listing(
            f"{TRADING}/trading_pairs/", params, RestTradingPair, "trading_pairs"
        )

    async def best_bid_ask(self, *symbols: str) -> list[RestBestBidAsk]:
        """The best bid and ask of each of ``symbols`` (every pair when none are named)."""
        params = [("symbol", symbol) for symbol in symbols]
        return await self._listing(
            f"{MARKETDATA}/best_bid_ask/", params, RestBestBidAsk, "best_bid_ask"
        )

    async def estimated_price(
        self, symbol: str, side: Literal["bid", "ask", "both"], quantities: Sequence[Decimal]
    ) -> list[RestEstimatedPrice]:
        """The price ``quantities`` of ``symbol`` would fetch (bid: selling, ask: buying)."""
        if not quantities:
            raise ValueError("quantities: name at least one")
        amounts = ",".join(to_wire(quantity) for quantity in quantities)
        params = [("symbol", symbol), ("side", side), ("quantity", amounts)]
        return await self._listing(
            f"{MARKETDATA}/estimated_price/", params, RestEstimatedPrice, "estimated_price"
        )

    async def orders(self, **filters: str) -> list[RestOrder]:
        """Every order matching ``filters`` (``symbol``, ``side``, ``state``, ``type``,
        ``created_at_start``, …, as the API names them), all pages."""
        params = sorted(filters.items())
        return await self._listing(f"{TRADING}/orders/", params, RestOrder, "orders")

    async def order(self, order_id: str) -> RestOrder:
        answer = await self._send("GET", f"{TRADING}/orders/{_id(order_id)}/", tool="order")
        return parse_model(RestOrder, answer, tool="order")

    async def place_order(self, request: RestOrderRequest) -> RestOrder:
        """Place ``request`` once (never re-sent); the venue's order as it accepted it."""
        answer = await self._send(
            "POST", f"{TRADING}/orders/", tool="place_order", body=request.body()
        )
        return parse_model(RestOrder, answer, tool="place_order")

    async def cancel_order(self, order_id: str) -> None:
        """Ask the venue to cancel; the order's state says when it is cancelled."""
        path = f"{TRADING}/orders/{_id(order_id)}/cancel/"
        await self._send("POST", path, tool="cancel_order", body=None, expect_json=False)

    # -- the wire ---------------------------------------------------------------------------

    async def _listing(
        self, path: str, params: Sequence[tuple[str, str]], model: type[M], tool: str
    ) -> list[M]:
        first = _query(path, params)

        async def fetch(cursor: str | None) -> RestPage:
            target = first if cursor is None else self._same_origin(cursor, tool)
            return parse_model(RestPage, await self._send("GET", target, tool=tool), tool=tool)

        rows: list[M] = []
        async for page in walk_pages(fetch, tool=tool, max_pages=self._max_pages):
            rows.extend(parse_model(model, row, tool=tool) for row in page.results)
        return rows

    def _same_origin(self, url: str, tool: str) -> str:
        split = urlsplit(url)
        if f"{split.scheme}://{split.netloc}" != self._origin or not split.path.startswith("/"):
            raise PaginationError(
                "the listing's next page is on another origin", tool=tool, code="foreign_next"
            )
        return f"{split.path}?{split.query}" if split.query else split.path

    async def _turn(self, tool: str) -> None:
        waited = 0.0
        while wait := self.bucket.take():
            if waited + wait > self._max_wait_s:
                raise RateLimitWait(
                    f"the rate limit would hold this request over {self._max_wait_s:g} s",
                    tool=tool,
                )
            await self._sleep(wait)
            waited += wait

    async def _send(
        self,
        method: str,
        path: str,
        *,
        tool: str,
        body: dict[str, Any] | None = None,
        expect_json: bool = True,
    ) -> Any:
        content = "" if body is None else json.dumps(body, separators=(",", ":"))
        request = self._http.build_request(
            method,
            self._origin + path,
            content=content.encode() if content else None,
            headers={"content-type": "application/json"} if content else None,
        )
        # What is signed is what goes out: the path as the request will write it.
        signed_path = request.url.raw_path.decode("ascii")
        await self._turn(tool)
        request.headers.update(self._key.headers(int(self._now()), signed_path, method, content))
        try:
            answer = await self._http.send(request)
        except httpx2.TransportError as error:
            raise TransportError(
                f"no answer from {self._origin} ({type(error).__name__})", tool=tool
            ) from None
        if answer.status_code == 429:
            self.bucket.drain()
        if answer.status_code >= 300:
            raise _refusal(answer, tool)
        if not expect_json:
            return None
        try:
            return answer.json()
        except ValueError:
            raise ResponseParseError("the answer is not JSON", tool=tool) from None


def _id(order_id: str) -> str:
    if not order_id or not all(c.isalnum() or c == "-" for c in order_id):
        raise ValueError("order_id: expected an order id (letters, digits and dashes)")
    return order_id


def _refusal(answer: httpx2.Response, tool: str) -> ToolError:
    status = answer.status_code
    kind, detail, attr = "", "", None
    document: object
    try:
        document = answer.json()
    except ValueError:
        document = None
    if isinstance(document, dict):
        said_kind = document.get("type")
        kind = said_kind if isinstance(said_kind, str) else ""
        errors = document.get("errors")
        first = errors[0] if isinstance(errors, list) and errors else None
        if isinstance(first, dict):
            detail = str(first.get("detail") or "")
            attr = first.get("attr") if isinstance(first.get("attr"), str) else None
    said = f": {detail}" if detail else ""
    if status in _REFUSALS:
        return BusinessError(
            f"the venue refused the request ({status}{said})",
            tool=tool,
            code=kind or f"http_{status}",
            field=attr,
        )
    return HTTPStatusError(f"the venue answered {status}{said}", tool=tool, status=status)

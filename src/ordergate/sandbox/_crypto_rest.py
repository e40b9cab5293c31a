"""The sandbox's Crypto Trading REST venue: Robinhood's REST rail on loopback.

The same endpoints as ``https://trading.robinhood.com/api/v1/crypto/...``, served from the
venue's crypto desk, so an order placed here is the order the MCP's crypto tools list (one
account: the agentic one's ``rhs_account_number``), brought up to the venue's clock before
each answer as a tool call is. Every request is checked as Robinhood
checks it before anything is read or done: a known ``x-api-key``, an ``x-timestamp`` at most
30 s from now and an ``x-signature`` that verifies under the key's registered public key
over ``ordergate.client.crypto_rest.signed_message`` (the one definition the client signs).
A refusal is 401 with Robinhood's error body (``{"type": "client_error", "errors": [...]}``);
a bad request is 400 ``validation_error`` naming the field (``attr``). An order's state is
the API's (``open``, ``partially_filled``, ``filled``, ``canceled``, ``failed``).

Keys are issued on the loopback-only admin (``POST /_sandbox/crypto_api_keys``): the
sandbox registers the public key given, or makes a key pair and answers its private key once.

How a signed request's work runs is the caller's (``run``): the sandbox brings the venue up
to its clock and does it; paper trading (``ordergate.venues.paper``) does it in its engine's
turn on the paper book, once the pairs the request names (``named_pairs``) are priced. The
work itself is synchronous and answers a ``Response``: a venue's refusal is an answer, so a
refused request moves nothing but the clock.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ordergate.client.crypto_rest import public_key_text, signature_problem
from ordergate.core import (
    CryptoOrderState,
    CryptoOrderType,
    to_wire,
    wire_money,
    wire_or_none,
    wire_quantity,
    wire_time,
)
from ordergate.mcpserve import loads_json
from ordergate.sandbox.market import CryptoPair
from ordergate.sandbox.tools import VenueError
from ordergate.sandbox.venue._crypto import crypto_desk
from ordergate.sandbox.venue._crypto_model import CryptoOrder

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["RestKeys", "RestRun", "named_pairs", "rest_routes"]

TRADING = "/api/v1/crypto/trading"
MARKETDATA = "/api/v1/crypto/marketdata"
PAGE = 100
# The REST API's own order states: the desk's new, queued and confirmed are all "open", and
# a rejected order "failed".
_REST_STATES = {
    CryptoOrderState.NEW: "open",
    CryptoOrderState.QUEUED: "open",
    CryptoOrderState.CONFIRMED: "open",
    CryptoOrderState.REJECTED: "failed",
}


def rest_state(state: CryptoOrderState) -> str:
    """The desk's order state as the Crypto Trading API names it."""
    return _REST_STATES.get(state, str(state))


@dataclass(slots=True)
class RestKeys:
    """The API keys the venue knows: each one's base64 public key."""

    keys: dict[str, str] = field(default_factory=dict)

    def register(self, public_key: str | None) -> dict[str, str]:
        """A new API key for ``public_key``, or for a key pair made here (its private key
        answered once, never kept)."""
        issued: dict[str, str] = {}
        if public_key is None:
            private = Ed25519PrivateKey.generate()
            seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
            issued["private_key"] = base64.b64encode(seed).decode("ascii")
            public_key = public_key_text(private.public_key())
        api_key = f"rh-api-{secrets.token_hex(16)}"
        self.keys[api_key] = public_key
        return {"api_key": api_key, "public_key": public_key, **issued}


def _client_error(status: int, detail: str, attr: str | None = None) -> JSONResponse:
    kind = "validation_error" if status == 400 else "client_error"
    return JSONResponse(
        {"type": kind, "errors": [{"detail": detail, "attr": attr}]}, status_code=status
    )


def _signed_path(request: Request) -> str:
    path: str = request.scope["raw_path"].decode("latin-1")
    query: bytes = request.scope["query_string"]
    return f"{path}?{query.decode('latin-1')}" if query else path


Handler = Callable[[Request, str], Any]
RestRun = Callable[[Request, str, Callable[[], Response]], Awaitable[Response]]
"""Runs one signed request's work (``request``, its ``body``) on the venue brought up to its
clock, and answers what the work answers."""


def named_pairs(request: Request, body: str) -> tuple[str, ...] | None:
    """The pairs a request names (its ``symbol`` parameters, or a new order's ``symbol``),
    upper case; ``None`` when it asks of every pair listed (a pair or quote listing that
    names none). What a paper book prices before it answers."""
    if request.method == "POST":
        try:
            document = loads_json(body.encode())
        except ValueError:
            return ()
        symbol = document.get("symbol") if isinstance(document, dict) else None
        return (symbol.strip().upper(),) if isinstance(symbol, str) and symbol.strip() else ()
    symbols = tuple(s.strip().upper() for s in request.query_params.getlist("symbol"))
    every = request.url.path.endswith(("/trading_pairs/", "/best_bid_ask/"))
    return None if every and not symbols else symbols


def rest_routes(
    venue: Venue,
    keys: RestKeys,
    *,
    page_size: int = PAGE,
    now_s: Callable[[], float] = time.time,
    run: RestRun | None = None,
) -> list[Route]:
    """The REST venue's routes, listings ``page_size`` rows a page; ``now_s`` is the wall
    clock the timestamps are held to; ``run``: how a request's work runs (the venue synced,
    then the work, unless told otherwise)."""
    desk = crypto_desk(venue)

    async def synced(request: Request, body: str, work: Callable[[], Response]) -> Response:
        # The desks brought up to the clock first, as every MCP tool call does: REST and
        # the MCP answer one account at one instant.
        venue.sync()
        return work()

    running = run or synced

    def rhs() -> str:
        return venue.accounts.agentic.rhs_account_number

    def answered(handler: Handler, request: Request, body: str) -> Response:
        try:
            answer = handler(request, body)
        except VenueError as error:
            status = 404 if error.code == "NOT_FOUND" and error.field == "order_id" else 400
            return _client_error(status, error.message, error.field)
        return answer if isinstance(answer, Response) else JSONResponse(answer)

    def signed(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            body = (await request.body()).decode("utf-8", errors="replace")
            api_key = request.headers.get("x-api-key", "")
            public_key = keys.keys.get(api_key)
            if public_key is None:
                return _client_error(401, "Invalid API key.")
            problem = signature_problem(
                public_key,
                request.headers.get("x-signature", ""),
                api_key=api_key,
                timestamp=request.headers.get("x-timestamp", ""),
                path=_signed_path(request),
                method=request.method,
                body=body,
                now_s=now_s(),
            )
            if problem is not None:
                return _client_error(401, problem)
            return await running(request, body, lambda: answered(handler, request, body))

        return endpoint

    def pair_of(symbol: str) -> CryptoPair:
        pair = desk.pair(symbol)
        if pair is None:
            raise VenueError("NOT_FOUND", f"no crypto pair is listed as {symbol!r}", field="symbol")
        return pair

    def listing(request: Request, rows: list[dict[str, Any]]) -> dict[str, Any]:
        cursor = request.query_params.get("cursor", "0")
        start = int(cursor) if cursor.isdigit() else 0
        end = start + page_size
        following = None
        if end < len(rows):
            # The next page is the same listing further on: its filters kept, the cursor moved.
            kept = [(k, v) for k, v in request.query_params.multi_items() if k != "cursor"]
            following = str(request.url.replace(query=urlencode([*kept, ("cursor", str(end))])))
        return {"next": following, "previous": None, "results": rows[start:end]}

    def accounts(request: Request, body: str) -> Any:
        account = venue.accounts.get_rhs(rhs())
        return {
            "account_number": account.rhs_account_number,
            "status": "active",
            "buying_power": wire_money(account.buying_power),
            "buying_power_currency": "USD",
        }

    def holdings(request: Request, body: str) -> Any:
        account = venue.accounts.get_rhs(rhs())
        wanted = set(request.query_params.getlist("asset_code"))
        rows = [
            {
                "account_number": account.rhs_account_number,
                "asset_code": holding.currency_code,
                "total_quantity": wire_quantity(holding.quantity),
                "quantity_available_for_trading": wire_quantity(
                    desk.sellable(account.account_number, holding.pair)
                ),
            }
            for holding in desk.holdings.of(account.account_number)
            if not wanted or holding.currency_code in wanted
        ]
        return listing(request, rows)

    def trading_pairs(request: Request, body: str) -> Any:
        symbols = request.query_params.getlist("symbol")
        pairs = [pair_of(s) for s in symbols] or list(desk.market.pairs())
        rows = [
            {
                "symbol": pair.symbol,
                "asset_code": pair.asset_code,
                "quote_code": pair.quote_code,
                "status": str(pair.tradability),
                "quote_increment": to_wire(pair.quote_increment),
                "asset_increment": to_wire(pair.asset_increment),
                "min_order_size": to_wire(pair.min_order_size),
                "max_order_size": to_wire(pair.max_order_size),
            }
            for pair in pairs
        ]
        return listing(request, rows)

    def quote_row(pair: CryptoPair) -> dict[str, Any]:
        quote = desk.quote(pair, venue.now())
        return {
            "symbol": pair.symbol,
            "price": to_wire(quote.mark_price),
            "bid_inclusive_of_sell_spread": to_wire(quote.bid_price),
            "sell_spread": "0",
            "ask_inclusive_of_buy_spread": to_wire(quote.ask_price),
            "buy_spread": "0",
            "timestamp": wire_time(quote.updated_at),
        }

    def best_bid_ask(request: Request, body: str) -> Any:
        symbols = request.query_params.getlist("symbol")
        pairs = [pair_of(s) for s in symbols] or list(desk.market.pairs())
        return {"results": [quote_row(pair) for pair in pairs]}

    def estimated_price(request: Request, body: str) -> Any:
        pair = pair_of(request.query_params.get("symbol", ""))
        side = request.query_params.get("side", "")
        if side not in ("bid", "ask", "both"):
            raise VenueError("INVALID_ARGUMENT", "side must be bid, ask or both", field="side")
        rows = []
        for text in request.query_params.get("quantity", "").split(","):
            try:
                quantity = Decimal(text)
            except ArithmeticError:
                raise VenueError(
                    "INVALID_ARGUMENT", "quantity is not a number", field="quantity"
                ) from None
            if not quantity.is_finite() or quantity <= 0:
                raise VenueError("INVALID_ARGUMENT", "quantity must be positive", field="quantity")
            for one in ("bid", "ask") if side == "both" else (side,):
                row = quote_row(pair)
                row.update(side=one, quantity=to_wire(quantity))
                rows.append(row)
        return {"results": rows}

    def order_row(order: CryptoOrder) -> dict[str, Any]:
        terms = order.terms
        config: dict[str, Any] = {}
        if terms.dollar_amount is not None:
            config["quote_amount"] = wire_money(terms.dollar_amount)
        else:
            config["asset_quantity"] = wire_quantity(terms.quantity)
        if terms.limit_price is not None:
            config["limit_price"] = to_wire(terms.limit_price)
        if terms.stop_price is not None:
            config["stop_price"] = to_wire(terms.stop_price)
        if terms.type is not CryptoOrderType.MARKET:
            config["time_in_force"] = str(terms.time_in_force)
        return {
            "id": order.id,
            "account_number": terms.rhs_account_number,
            "symbol": terms.symbol,
            "client_order_id": order.ref_id,
            "side": str(terms.side),
            "type": str(terms.type),
            "state": rest_state(order.state),
            "average_price": wire_or_none(order.average_price),
            "filled_asset_quantity": wire_quantity(order.cumulative_quantity),
            "executions": [
                {
                    "effective_price": to_wire(e.price),
                    "quantity": wire_quantity(e.quantity),
                    "timestamp": wire_time(e.timestamp),
                }
                for e in order.executions
            ],
            "created_at": wire_time(order.created_at),
            "updated_at": wire_time(order.updated_at or order.created_at),
            f"{terms.type}_order_config": config,
        }

    def account_number() -> str:
        return venue.accounts.get_rhs(rhs()).account_number

    def orders(request: Request, body: str) -> Any:
        if request.method == "POST":
            return place(body)
        params = request.query_params
        start, end = instant(params, "created_at_start"), instant(params, "created_at_end")
        rows = [
            order_row(order)
            for order in desk.listed(account_number(), params.get("id"))
            if all(
                params.get(name) in (None, value)
                for name, value in (
                    ("symbol", order.terms.symbol),
                    ("side", str(order.terms.side)),
                    ("state", rest_state(order.state)),
                    ("type", str(order.terms.type)),
                )
            )
            and (start is None or order.created_at >= start)
            and (end is None or order.created_at <= end)
        ]
        return listing(request, rows)

    def instant(params: Mapping[str, str], name: str) -> datetime | None:
        text = params.get(name)
        if text is None:
            return None
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise VenueError("INVALID_ARGUMENT", f"{name} is not a time", field=name) from None
        if moment.tzinfo is None:
            raise VenueError("INVALID_ARGUMENT", f"{name} needs its offset", field=name)
        return moment

    def place(body: str) -> Any:
        try:
            document = loads_json(body.encode())
        except ValueError:
            raise VenueError("INVALID_ARGUMENT", "the body is not JSON", field="body") from None
        if not isinstance(document, dict):
            raise VenueError("INVALID_ARGUMENT", "the body is not an object", field="body")
        kind = str(document.get("type", ""))
        config = document.get(f"{kind}_order_config")
        if not isinstance(config, dict):
            raise VenueError("INVALID_ARGUMENT", f"{kind}_order_config is required", field="type")
        args: dict[str, Any] = {
            "rhs_account_number": rhs(),
            "ref_id": document.get("client_order_id"),
            "symbol": document.get("symbol", ""),
            "side": document.get("side", ""),
            "type": kind,
            "quantity": config.get("asset_quantity"),
            "dollar_amount": config.get("quote_amount"),
            "limit_price": config.get("limit_price"),
            "stop_price": config.get("stop_price"),
            "time_in_force": config.get("time_in_force"),
        }
        placed = desk.place({k: v for k, v in args.items() if v is not None})
        if not isinstance(placed, CryptoOrder):
            raise VenueError("APPROVAL_REQUIRED", "this account's orders wait for approval")
        return JSONResponse(order_row(placed), status_code=201)

    def order(request: Request, body: str) -> Any:
        return order_row(desk.order(account_number(), request.path_params["order_id"]))

    def cancel(request: Request, body: str) -> Any:
        order_id = request.path_params["order_id"]
        desk.cancel(rhs(), order_id)
        return Response(f"Cancel request has been submitted for order {order_id}")

    return [
        Route(f"{TRADING}/accounts/", signed(accounts)),
        Route(f"{TRADING}/holdings/", signed(holdings)),
        Route(f"{TRADING}/trading_pairs/", signed(trading_pairs)),
        Route(f"{TRADING}/orders/", signed(orders), methods=["GET", "POST"]),
        Route(f"{TRADING}/orders/{{order_id}}/", signed(order)),
        Route(f"{TRADING}/orders/{{order_id}}/cancel/", signed(cancel), methods=["POST"]),
        Route(f"{MARKETDATA}/best_bid_ask/", signed(best_bid_ask)),
        Route(f"{MARKETDATA}/estimated_price/", signed(estimated_price)),
    ]

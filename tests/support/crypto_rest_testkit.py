"""A stand-in for Robinhood's Crypto Trading REST API on loopback, for the REST client's tests.

It checks every request's signature with the public key only (``signature_problem``) and
refuses a bad one as Robinhood does (401 and its error body); it answers the documented
shapes from fixed rows, listings two rows a page with absolute ``next`` URLs. What arrived
is in ``requests``.

The documentation's private key is registered with the suite's secret scan (``conftest``):
a test whose output shows it fails.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import owner_testkit

from ordergate.client.crypto_rest import signature_problem

DOC_PRIVATE_KEY = "xQnTJVeQLmw1/Mg2YimEViSpw/SdJcgNXZ5kQkAXNPU="
DOC_PUBLIC_KEY = "jPItx4TLjcnSUnmnXQQyAKL4eJj3+oWNNMmmm2vATqk="
DOC_API_KEY = "rh-api-6148effc-c0b1-486c-8940-a1d099456be6"
owner_testkit.SECRETS.add(DOC_PRIVATE_KEY)
NOW_S = 1_800_000_000.0
ACCOUNT = "RH-CRYPTO-1"


def _order(number: int, **overrides: Any) -> dict[str, Any]:
    row = {
        "id": f"order-{number}",
        "account_number": ACCOUNT,
        "symbol": "BTC-USD",
        "client_order_id": f"00000000-0000-4000-8000-00000000000{number}",
        "side": "buy",
        "type": "market",
        "state": "filled",
        "average_price": "60000.10",
        "filled_asset_quantity": "0.001",
        "executions": [
            {
                "effective_price": "60000.10",
                "quantity": "0.001",
                "timestamp": "2026-12-02T14:00:00Z",
            }
        ],
        "created_at": "2026-12-02T14:00:00Z",
        "updated_at": "2026-12-02T14:00:01Z",
        "market_order_config": {"asset_quantity": "0.001"},
    }
    row.update(overrides)
    return row


QUOTE = {
    "symbol": "BTC-USD",
    "price": "60000.00",
    "bid_inclusive_of_sell_spread": "59900.00",
    "sell_spread": "0.0017",
    "ask_inclusive_of_buy_spread": "60100.00",
    "buy_spread": "0.0017",
    "timestamp": "2026-12-02T14:00:00Z",
}
PAIR = {
    "symbol": "BTC-USD",
    "asset_code": "BTC",
    "quote_code": "USD",
    "status": "tradable",
    "quote_increment": "0.01",
    "asset_increment": "0.00000001",
    "min_order_size": "0.000001",
    "max_order_size": "20",
}


@dataclass
class Arrived:
    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class RestStandIn:
    url: str
    requests: list[Arrived] = field(default_factory=list)
    now_s: list[float] = field(default_factory=lambda: [NOW_S])
    answers: dict[str, tuple[int, Any]] = field(default_factory=dict)
    """Fixed answers by path (status, JSON document or raw bytes) that replace the usual ones."""


def _listing(base: str, path: str, rows: list[dict[str, Any]], query: dict[str, list[str]]) -> Any:
    start = int(query.get("cursor", ["0"])[0])
    following = start + 2
    return {
        "next": f"{base}{path}?cursor={following}" if following < len(rows) else None,
        "previous": None,
        "results": rows[start:following],
    }


def _answer(stand_in: RestStandIn, arrived: Arrived) -> tuple[int, Any]:
    split = urlsplit(arrived.path)
    path, query = split.path, parse_qs(split.query)
    if path in stand_in.answers:
        return stand_in.answers[path]
    trading = "/api/v1/crypto/trading"
    if path == f"{trading}/accounts/":
        return 200, {"account_number": ACCOUNT, "status": "active", "buying_power": "1000.50",
                     "buying_power_currency": "USD"}  # fmt: skip
    if path == f"{trading}/holdings/":
        rows = [
            {"account_number": ACCOUNT, "asset_code": code, "total_quantity": quantity,
             "quantity_available_for_trading": quantity}
            for code, quantity in (("BTC", "0.5"), ("ETH", "2"), ("DOGE", "1000"))
            if code in query.get("asset_code", [code])
        ]  # fmt: skip
        return 200, _listing(stand_in.url, path, rows, query)
    if path == f"{trading}/trading_pairs/":
        return 200, _listing(stand_in.url, path, [PAIR], query)
    if path == "/api/v1/crypto/marketdata/best_bid_ask/":
        return 200, {"results": [dict(QUOTE, symbol=symbol) for symbol in query["symbol"]]}
    if path == "/api/v1/crypto/marketdata/estimated_price/":
        quantities = query["quantity"][0].split(",")
        side = query["side"][0]
        return 200, {"results": [dict(QUOTE, side=side, quantity=q) for q in quantities]}
    if path == f"{trading}/orders/" and arrived.method == "POST":
        body = json.loads(arrived.body)
        if body["symbol"] != "BTC-USD":
            return 400, {"type": "validation_error",
                         "errors": [{"detail": "Unknown symbol.", "attr": "symbol"}]}  # fmt: skip
        config = body[f"{body['type']}_order_config"]
        return 201, _order(9, client_order_id=body["client_order_id"], side=body["side"],
                           type=body["type"], state="open", filled_asset_quantity="0",
                           average_price=None, executions=[],
                           **{f"{body['type']}_order_config": config})  # fmt: skip
    if path == f"{trading}/orders/":
        return 200, _listing(stand_in.url, path, [_order(n) for n in (1, 2, 3)], query)
    if path.startswith(f"{trading}/orders/") and path.endswith("/cancel/"):
        return 200, "Cancel request has been submitted"
    if path.startswith(f"{trading}/orders/"):
        order_id = path.rsplit("/", 2)[1]
        if order_id == "order-1":
            return 200, _order(1)
        return 404, {"type": "client_error", "errors": [{"detail": "Not found.", "attr": None}]}
    return 404, {"type": "client_error", "errors": [{"detail": "Not found.", "attr": None}]}


@contextmanager
def rest_stand_in(public_key: str = DOC_PUBLIC_KEY) -> Iterator[RestStandIn]:
    """The stand-in on a free loopback port for the block."""
    holder: list[RestStandIn] = []

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            arrived = Arrived(self.command, self.path, dict(self.headers.items()), body)
            stand_in = holder[0]
            stand_in.requests.append(arrived)
            problem = signature_problem(
                public_key,
                self.headers.get("x-signature", ""),
                api_key=self.headers.get("x-api-key", ""),
                timestamp=self.headers.get("x-timestamp", ""),
                path=self.path,
                method=self.command,
                body=body,
                now_s=stand_in.now_s[0],
            )
            if problem:
                status, document = 401, {"type": "client_error",
                                         "errors": [{"detail": problem, "attr": None}]}  # fmt: skip
            else:
                status, document = _answer(stand_in, arrived)
            data = document if isinstance(document, bytes) else json.dumps(document).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(RestStandIn(f"http://127.0.0.1:{server.server_address[1]}"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)

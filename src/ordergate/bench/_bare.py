"""The baseline: a bare Starlette JSON endpoint, run as its own process like the venue.

It reads the JSON-RPC body and answers a JSON body of the same shape and similar size, so the
comparison isolates what the venue adds (auth, validation, the market, the envelope).
"""

from __future__ import annotations

import json
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

__all__ = ["bare_app"]

_QUOTE = {
    "symbol": "AAPL",
    "last_trade_price": "231.45",
    "venue_last_trade_time": "2026-12-01T15:00:00Z",
    "last_non_reg_trade_price": None,
    "venue_last_non_reg_trade_time": None,
    "adjusted_previous_close": "229.10",
    "previous_close": "229.10",
    "previous_close_date": "2026-11-30",
    "bid_price": "231.44",
    "venue_bid_time": "2026-12-01T15:00:00Z",
    "ask_price": "231.46",
    "venue_ask_time": "2026-12-01T15:00:00Z",
    "has_traded": True,
    "state": "active",
}


async def _endpoint(request: Request) -> JSONResponse:
    message = json.loads(await request.body())
    payload = {"data": {"results": [{"quote": _QUOTE}]}, "guide": "Quotes are delayed."}
    result = {
        "content": [{"type": "text", "text": json.dumps(payload)}],
        "structuredContent": payload,
        "isError": False,
    }
    return JSONResponse({"jsonrpc": "2.0", "id": message.get("id"), "result": result})


bare_app = Starlette(routes=[Route("/bare", _endpoint, methods=["POST"])])

if __name__ == "__main__":
    uvicorn.run(
        bare_app, host="127.0.0.1", port=int(sys.argv[1]), log_level="info", access_log=False
    )

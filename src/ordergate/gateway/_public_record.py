"""The public record page (``serve --public-record``, off by default): ``GET /record`` as
HTML and ``GET /record.json``, reachable without a token.

It shows what ``ordergate.record.public_view`` gives and nothing else: each identity as its
hashed public id, its graded count, its mean and median excess over SPY in bps, its hit rate
and its rank (once thirty placements are graded). No identity, symbol, price, time, account
or filing is on it. Rendered on the server with every value escaped; the page loads nothing
(``Content-Security-Policy: default-src 'none'``).
"""

from __future__ import annotations

import html
from typing import Any

from sqlalchemy import Engine
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ordergate.record import public_view
from ordergate.store import blocking

__all__ = ["public_record_routes"]

_HEADERS = {
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
_COLUMNS = (
    ("rank", "Rank"),
    ("id", "Identity (hashed)"),
    ("graded", "Graded"),
    ("mean_excess_bps", "Mean excess bps"),
    ("median_excess_bps", "Median excess bps"),
    ("hit_rate", "Hit rate"),
)


def _cell(value: object) -> str:
    return f"<td>{html.escape('—' if value is None else str(value))}</td>"


def render(view: dict[str, Any]) -> str:
    """The page for ``public_view``'s answer."""
    rows = "".join(
        "<tr>" + "".join(_cell(record[key]) for key, _ in _COLUMNS) + "</tr>"
        for record in view["records"]
    )
    head = "".join(f"<th>{html.escape(name)}</th>" for _, name in _COLUMNS)
    empty = "" if view["records"] else "<p>No placement has been graded yet.</p>"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>ordergate: the graded record</title></head><body>"
        "<h1>The graded record</h1>"
        "<p>Each filled placement is graded one NYSE trading day after its fill: its return "
        "from the average fill price to that day's close, minus SPY's over the same span, "
        "negated for a sell, in basis points. An identity is ranked once "
        f"{int(view['ranked_after'])} of its placements are graded.</p>"
        f"{empty}<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        "</body></html>"
    )


def public_record_routes(engine: Engine) -> list[Route]:
    """``/record`` and ``/record.json`` over the ledger's ``engine``."""

    async def page(request: Request) -> Response:
        view = await blocking(public_view, engine)
        return HTMLResponse(render(view), headers=_HEADERS)

    async def data(request: Request) -> Response:
        return JSONResponse(await blocking(public_view, engine), headers=_HEADERS)

    return [
        Route("/record", page, methods=["GET"]),
        Route("/record.json", data, methods=["GET"]),
    ]

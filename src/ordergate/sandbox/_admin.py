"""The loopback-only admin routes (``/_sandbox/...``) through which tests turn the venue's knobs.

Every route refuses a client that is not on a loopback address, and every body is validated
with errors that name the bad field. The knobs act on the first user's venue state (the market,
the clock and the faults are every user's); ``state`` and ``tokens`` take a ``user`` to act on
another's, and ``users`` lists the users with their passwords (a test's to sign in with).
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ordergate.core import ConfigError, SteppedClock, to_wire
from ordergate.mcpserve import loads_json
from ordergate.sandbox.venue import split_shares

if TYPE_CHECKING:
    from ordergate.sandbox._app import Sandbox
    from ordergate.sandbox.venue import Venue

__all__ = ["admin_routes"]


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refusal(status: int, field: str, reason: str) -> JSONResponse:
    return JSONResponse({"error": {"field": field, "reason": reason}}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = loads_json(await request.body() or b"{}")
    except ValueError:  # not JSON, or nested past MAX_JSON_DEPTH
        raise ConfigError("body", "must be a JSON object") from None
    if not isinstance(body, dict):
        raise ConfigError("body", "must be a JSON object")
    return body


def admin_routes(sandbox: Sandbox) -> list[Route]:
    venue = sandbox.venue

    def guarded(handler: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            if not _loopback(request):
                return _refusal(403, "client", "admin routes answer loopback clients only")
            try:
                result: dict[str, Any] = await handler(request)
            except ConfigError as error:
                return _refusal(400, error.key, error.reason)
            return JSONResponse(result)

        return endpoint

    def user_named(name: object) -> Venue:
        if name is None:
            return venue
        try:
            return sandbox.user(str(name)).venue
        except KeyError:
            raise ConfigError("user", "no such user") from None

    async def state(request: Request) -> dict[str, Any]:
        shown = user_named(request.query_params.get("user"))
        now = shown.sync()
        return {
            "now": now.isoformat(),
            "user": next(user.name for user in sandbox.users if user.venue is shown),
            "seed": venue.seed,
            "clock": str(getattr(venue.clock, "mode", "custom")),
            "faults": venue.faults.snapshot(),
            "accounts": [
                {
                    "account_number": a.account_number,
                    "rhs_account_number": a.rhs_account_number,
                    "agentic_allowed": a.agentic_allowed,
                    "cash": to_wire(a.cash),
                    "buying_power": to_wire(a.buying_power),
                    "human_must_approve_trades": a.human_must_approve_trades,
                }
                for a in shown.accounts.all()
            ],
        }

    async def users(request: Request) -> dict[str, Any]:
        return {
            "users": [
                {
                    "name": user.name,
                    "password": user.password.reveal() if user.password is not None else None,
                    "agentic_account": user.venue.accounts.agentic.account_number,
                }
                for user in sandbox.users
            ]
        }

    async def clock(request: Request) -> dict[str, Any]:
        body = await _body(request)
        stepped = venue.clock
        if not isinstance(stepped, SteppedClock):
            raise ConfigError(
                "clock", "only a stepped clock can be moved (start with --clock stepped)"
            )
        unknown = set(body) - {"advance_seconds", "set"}
        if unknown:
            raise ConfigError(sorted(unknown)[0], "unknown field (use advance_seconds or set)")
        try:
            if "advance_seconds" in body:
                seconds = _decimal("advance_seconds", body["advance_seconds"])
                stepped.advance(timedelta(microseconds=int(seconds * 1_000_000)))
            elif "set" in body:
                stepped.set(datetime.fromisoformat(str(body["set"])))
            else:
                raise ConfigError("advance_seconds", "give advance_seconds or set")
        except ValueError as error:
            raise ConfigError(next(iter(body), "set"), str(error)) from None
        return {"now": venue.sync().isoformat()}

    async def faults(request: Request) -> dict[str, Any]:
        venue.faults.update(await _body(request))
        return {"faults": venue.faults.snapshot()}

    async def shock(request: Request) -> dict[str, Any]:
        body = await _body(request)
        symbol = body.get("symbol")
        if not isinstance(symbol, str) or not symbol:
            raise ConfigError("symbol", "a symbol is required")
        pct = _decimal("pct", body.get("pct"))
        try:
            venue.market.shock(symbol.upper(), pct)
        except (LookupError, ValueError) as error:
            raise ConfigError("symbol", str(error)) from None
        return {"symbol": symbol.upper(), "pct": to_wire(pct)}

    async def split(request: Request) -> dict[str, Any]:
        body = await _body(request)
        symbol = body.get("symbol")
        if not isinstance(symbol, str) or not symbol:
            raise ConfigError("symbol", "a symbol is required")
        ratio = _decimal("ratio", body.get("ratio"))
        if ratio <= 0 or ratio == 1:
            raise ConfigError("ratio", "must be positive and not 1 (2 is 2-for-1)")
        try:
            lots = split_shares(venue, symbol.upper(), ratio)
        except (LookupError, ValueError) as error:
            raise ConfigError("symbol", str(error).strip("'\"")) from None
        return {"symbol": symbol.upper(), "ratio": to_wire(ratio), "lots": lots}

    async def approval(request: Request) -> dict[str, Any]:
        body = await _body(request)
        flag = body.get("human_must_approve_trades")
        if not isinstance(flag, bool):
            raise ConfigError("human_must_approve_trades", "must be true or false")
        account = venue.accounts.agentic
        account.human_must_approve_trades = flag
        account.approval_setting_updated_at = venue.now()
        return {"account_number": account.account_number, "human_must_approve_trades": flag}

    async def tokens(request: Request) -> dict[str, Any]:
        body = await _body(request)
        if body.get("expire_access_tokens") is True:
            return {"expired": sandbox.oauth.expire_access_tokens()}
        name = body.get("user")
        user_named(name)  # refuses a user the venue does not have
        pair = sandbox.oauth.mint_tokens(sandbox.users[0].name if name is None else str(name))
        return {
            "access_token": pair.access_token.reveal(),
            "refresh_token": pair.refresh_token.reveal(),
            "token_type": "Bearer",
            "expires_in": pair.expires_in,
        }

    async def crypto_api_keys(request: Request) -> dict[str, Any]:
        """A Crypto Trading REST API key: for the ``public_key`` given, or for a key pair
        made here (its ``private_key`` answered once)."""
        public_key = (await _body(request)).get("public_key")
        if public_key is not None and not isinstance(public_key, str):
            raise ConfigError("public_key", "must be a base64 Ed25519 public key")
        return sandbox.rest_keys.register(public_key)

    return [
        Route("/_sandbox/state", guarded(state), methods=["GET"]),
        Route("/_sandbox/users", guarded(users), methods=["GET"]),
        Route("/_sandbox/clock", guarded(clock), methods=["POST"]),
        Route("/_sandbox/faults", guarded(faults), methods=["POST"]),
        Route("/_sandbox/shock", guarded(shock), methods=["POST"]),
        Route("/_sandbox/split", guarded(split), methods=["POST"]),
        Route("/_sandbox/approval", guarded(approval), methods=["POST"]),
        Route("/_sandbox/tokens", guarded(tokens), methods=["POST"]),
        Route("/_sandbox/crypto_api_keys", guarded(crypto_api_keys), methods=["POST"]),
    ]


def _decimal(field: str, value: object) -> Decimal:
    if isinstance(value, bool) or value is None:
        raise ConfigError(field, "must be a number")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise ConfigError(field, "must be a number") from None
    if not number.is_finite():
        raise ConfigError(field, "must be a finite number")
    return number

"""The person's push routes on a hosted rail (beside ``custody._person_routes``, same rules).

==================================  ==========================================================
``GET  /person/push/key``           the rail's VAPID public key, a browser's
                                    ``applicationServerKey`` (public: no code)
``POST /person/push/subscriptions`` ``{"connection", "person_code", "subscription"}``: keep
                                    the browser's ``PushSubscription.toJSON()`` for the
                                    connection (201 new, 200 already kept); the person's code
                                    is spent on act ``push_subscribe`` once the subscription
                                    is valid
==================================  ==========================================================
"""

from __future__ import annotations

from sqlalchemy import Engine
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ordergate.gateway.custody._person import PersonCodes
from ordergate.gateway.custody._person_routes import answering, person_body, refused_json
from ordergate.gateway.push._subscriptions import (
    PushRefused,
    PushSubscriptions,
    parse_subscription,
)
from ordergate.gateway.push._vapid import VapidKey
from ordergate.store import blocking

__all__ = ["PUSH_SUBSCRIBE", "push_routes"]

PUSH_SUBSCRIBE = "push_subscribe"
_NO_STORE = {"cache-control": "no-store"}


def push_routes(
    *,
    persons: PersonCodes,
    subscriptions: PushSubscriptions,
    vapid: VapidKey,
    engine: Engine,
    allow_private: bool = False,
) -> list[BaseRoute]:
    """The push routes over the rail's person codes and subscriptions."""

    async def key(request: Request) -> Response:
        return JSONResponse({"public_key": vapid.public_key})

    async def subscribe(request: Request) -> Response:
        connection_id, code, body = await person_body(request, engine)
        try:
            subscription = parse_subscription(body.get("subscription"), allow_private=allow_private)
        except PushRefused as refused:
            return refused_json(refused.status, refused.code, str(refused), refused.field)

        def keep() -> tuple[str, bool]:
            persons.authorize(connection_id, code, act=PUSH_SUBSCRIBE, detail={})
            return subscriptions.add(connection_id, subscription)

        try:
            subscription_id, new = await blocking(keep)
        except PushRefused as refused:
            return refused_json(refused.status, refused.code, str(refused), refused.field)
        return JSONResponse(
            {"subscription_id": subscription_id, "created": new},
            status_code=201 if new else 200,
            headers=_NO_STORE,
        )

    return [
        Route("/person/push/key", key, methods=["GET"]),
        Route("/person/push/subscriptions", answering(subscribe), methods=["POST"]),
    ]

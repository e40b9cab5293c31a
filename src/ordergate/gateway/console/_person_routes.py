"""A person's own console on a hosted rail, under ``/console/mine``: signed in with the passkey
they registered for their connection on the consent flow, it shows that connection only.

==============================================  =============================================
route                                           what it needs
==============================================  =============================================
``POST /console/person/options``                the sign-in page's CSRF token (opens a
                                                session not yet signed in, for the challenge)
``POST /console/person/sign-in``                CSRF, a passkey assertion of a live
                                                connection's; answers the session's key
``GET  /console/mine``                          a person's session
``POST /console/mine/sign-out``                 a person's session, CSRF
==============================================  =============================================

"A person's session" is a signed-in session with its key whose row names the connection it
was signed in to (``ConsoleSession.person``): every page reads that connection from the
session, never an id from the request. The operator's session opens none of these pages and a
person's opens none of the operator's; a connection that is no longer live ends the session.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ordergate.gateway.console._sessions import ConsoleSession
from ordergate.gateway.console._web import PREFIX, Refused, Web, at_party, read_form
from ordergate.gateway.custody import PersonPasskeys
from ordergate.gateway.desk import OwnerDesk
from ordergate.gateway.passkeys import PasskeyError
from ordergate.store import blocking

__all__ = ["MINE", "person_routes"]

MINE = "/mine"
_SIGN_IN = "person_sign_in"

Handler = Callable[[Request], Awaitable[Response]]
PersonHandler = Callable[[Request, ConsoleSession, dict[str, Any]], Awaitable[Response]]


class Guarded(Protocol):
    def __call__(self, handler: Handler, *, post: bool, as_json: bool = False) -> Handler: ...


def person_routes(
    web: Web, persons: PersonPasskeys, desk: OwnerDesk, guarded: Guarded
) -> list[BaseRoute]:
    """The person's console's endpoints (``guarded``: the console's one refusal wrapper)."""

    def person(handler: PersonHandler) -> Handler:
        async def serve(request: Request) -> Response:
            session = web.session(request)
            if session is None or not session.signed_in:
                if request.method == "POST":
                    raise Refused(401, "Sign in to your console first.")
                return web.redirect("/sign-in")
            if not session.bound:
                if request.method == "POST":
                    raise Refused(401, "This tab is not signed in to the console: sign in again.")
                return web.page("loader.html", None, 401)
            if session.person is None:
                raise Refused(403, "These pages are a person's own: the operator's are elsewhere.")
            connection = await desk.connection(session.person)
            if connection is None:  # disconnected or revoked meanwhile
                web.sessions.end(session)
                raise Refused(401, "That connection is no longer live: this session ended.")
            return await handler(request, session, connection)

        return serve

    async def options(request: Request) -> Response:
        presented = request.headers.get("x-csrf-token")
        token = web.pre_csrf(request, presented)
        at_party(request, persons.party)
        session = web.session(request)
        opened = None
        if session is None or session.signed_in or not session.csrf_matches(presented):
            opened, session = web.sessions.open_anonymous(token)
        offered, challenge = await blocking(persons.authentication_options)
        web.sessions.set_challenge(session, challenge, _SIGN_IN)
        answer = web.json(json.loads(offered))
        return web.with_cookie(answer, opened) if opened else answer

    async def sign_in(request: Request) -> Response:
        session = web.session(request)
        if session is None or session.signed_in:
            raise Refused(403, "Start the passkey sign-in again (no ceremony is in flight).")
        web.csrf(session, request.headers.get("x-csrf-token"))
        challenge = web.sessions.take_challenge(session, _SIGN_IN)
        if challenge is None:
            raise Refused(403, "No passkey challenge is in flight: start again.")
        credential = (await request.body()).decode("utf-8", "replace")
        try:
            connection_id = await blocking(
                lambda: persons.authenticate(credential, challenge, act="console_sign_in")
            )
        except PasskeyError as error:
            raise Refused(403, f"The passkey was refused: {error}.") from None
        raw, key, _ = web.sessions.sign_in(session, connection_id=connection_id)
        answer = web.json({"signed_in": True, "next": f"{PREFIX}{MINE}", "key": key})
        return web.with_cookie(answer, raw)

    async def mine(request: Request, session: ConsoleSession, conn: dict[str, Any]) -> Response:
        return web.page("mine.html", session, connection=conn, mine="overview")

    async def sign_out(request: Request, session: ConsoleSession, conn: dict[str, Any]) -> Response:
        web.csrf(session, (await read_form(request)).get("csrf"))
        web.sessions.end(session)
        return web.without_cookie(web.redirect("/sign-in"))

    p, m = PREFIX, PREFIX + MINE
    return [
        Route(f"{p}/person/options", guarded(options, post=True, as_json=True), methods=["POST"]),
        Route(f"{p}/person/sign-in", guarded(sign_in, post=True, as_json=True), methods=["POST"]),
        Route(m, guarded(person(mine), post=False), methods=["GET"]),
        Route(f"{m}/sign-out", guarded(person(sign_out), post=True), methods=["POST"]),
    ]

"""A person's own console on a hosted rail, under ``/console/mine``: signed in with the passkey
they registered for their connection on the consent flow, it shows that connection only.

==============================================  =============================================
route                                           what it needs
==============================================  =============================================
``POST /console/person/options``                the sign-in page's CSRF token (opens a
                                                session not yet signed in, for the challenge)
``POST /console/person/sign-in``                CSRF, a passkey assertion of a live
                                                connection's; answers the session's key
``POST /console/person/code-sign-in``           CSRF, the connection's id and its person's
                                                code (spent, journalled); hands the key to
                                                the page
``GET  /console/mine``                          a person's session (the connection, its
                                                waiting orders)
``POST /console/mine/passkey/options``          a person's session, CSRF; ``{"purpose":
                                                "approve", "approval_id"}``, ``{"purpose":
                                                "limits", "name", "value"}`` or
                                                ``{"purpose": "disconnect"}`` (the challenge
                                                bound to it, the connection's own passkey
                                                only)
``GET  /console/mine/approvals/{id}``           a person's session; an approval of another
                                                connection is 404
``POST /console/mine/approvals/{id}/approve``   a person's session, CSRF, their code or a
                                                passkey assertion
``POST /console/mine/approvals/{id}/deny``      a person's session, CSRF (journalled
                                                ``person_act`` ``deny``)
``GET  /console/mine/filings``                  a person's session (their connection's)
``GET  /console/mine/positions``                a person's session (their account, read on
                                                their own session, and its equity curve)
``POST /console/mine/limits``                   a person's session, CSRF, their code or a
                                                passkey assertion (its challenge bound to
                                                ``{"purpose": "limits", "name", "value"}``):
                                                one cap of their connection set anywhere up
                                                to the rail's ceiling (empty: up to it)
``POST /console/mine/disconnect``               a person's session, CSRF, their code or a
                                                passkey assertion; the answer links to where
                                                the grant is revoked at Robinhood
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

from ordergate.gateway._owner import identity_of
from ordergate.gateway.console._budget import AccountRead
from ordergate.gateway.console._equity import account_view
from ordergate.gateway.console._filings import FilingFilter, filings_view
from ordergate.gateway.console._options import approvals_with_options
from ordergate.gateway.console._sessions import ConsoleSession
from ordergate.gateway.console._web import PREFIX, Refused, Web, at_party, read_form, read_json
from ordergate.gateway.custody import LIMITS_SET, PersonPasskeys
from ordergate.gateway.desk import OwnerDesk
from ordergate.gateway.passkeys import PasskeyError
from ordergate.owner import OwnerAct
from ordergate.store import blocking

__all__ = ["MINE", "person_routes"]

MINE = "/mine"
_SIGN_IN = "person_sign_in"
_MAX_ID = 40
_MAX_CONNECTION = 64
_ACTS = ("approve", "disconnect", "limits")
_MAX_LIMIT = 40

Handler = Callable[[Request], Awaitable[Response]]
PersonHandler = Callable[[Request, ConsoleSession, dict[str, Any]], Awaitable[Response]]


class Guarded(Protocol):
    def __call__(self, handler: Handler, *, post: bool, as_json: bool = False) -> Handler: ...


def person_routes(
    web: Web,
    persons: PersonPasskeys,
    desk: OwnerDesk,
    guarded: Guarded,
    account_of: Callable[[str], AccountRead] | None = None,
) -> list[BaseRoute]:
    """The person's console's endpoints (``guarded``: the console's one refusal wrapper;
    ``account_of``: a connection's account, read through that connection's own guard)."""

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

    async def code_sign_in(request: Request) -> Response:
        form = await read_form(request)
        web.pre_csrf(request, form.get("csrf"))
        connection_id = form.get("connection_id", "").strip()
        if not 0 < len(connection_id) <= _MAX_CONNECTION:
            raise Refused(400, "connection_id must be your connection's id.")
        await desk.person_sign_in(connection_id, form.get("person_code") or None)
        raw, key, _ = web.sessions.sign_in(web.session(request), connection_id=connection_id)
        page = web.page("signed_in.html", None, key=key, next=f"{PREFIX}{MINE}")
        return web.with_cookie(page, raw)

    async def mine(request: Request, session: ConsoleSession, conn: dict[str, Any]) -> Response:
        waiting = await blocking(
            approvals_with_options, desk.ledger, await desk.person_approvals(conn["connection_id"])
        )
        limits = await desk.connection_limits(conn["connection_id"])
        return web.page(
            "mine.html", session, connection=conn, approvals=waiting, limits=limits,
            mine="overview",
        )  # fmt: skip

    async def set_limit(
        request: Request, session: ConsoleSession, conn: dict[str, Any]
    ) -> Response:
        if _is_json(request):
            named = await passkey_vouches(request, session, conn, "limits", None)
            name, _, value = named.partition("=")
            answer = await desk.person_limits(
                conn["connection_id"], _one_limit(name, value), None, passkey=True
            )
            return web.json(answer)
        form = await read_form(request)
        web.csrf(session, form.get("csrf"))
        asked = _one_limit(form.get("name", ""), form.get("value", ""))
        await desk.person_limits(conn["connection_id"], asked, form.get("owner_code") or None)
        return web.redirect(MINE)

    async def ours(conn: dict[str, Any], approval_id: str) -> dict[str, Any]:
        """The waiting approval ``approval_id`` if it is this connection's; 404 otherwise
        (another connection's id is not told apart from none)."""
        for approval in await desk.person_approvals(conn["connection_id"]):
            if approval["approval_id"] == approval_id:
                # An option order's legs and figures, or an exercise's contract.
                (shown,) = await blocking(approvals_with_options, desk.ledger, [approval])
                return shown
        raise Refused(404, "None of your waiting orders has that id.")

    async def act_options(
        request: Request, session: ConsoleSession, conn: dict[str, Any]
    ) -> Response:
        web.csrf(session, request.headers.get("x-csrf-token"))
        body = await read_json(request)
        purpose = body.get("purpose")
        if purpose not in _ACTS:
            raise Refused(400, "purpose must be approve, disconnect or limits.")
        bound = ""
        if purpose == "limits":
            # The challenge is bound to this one change: the assertion sets nothing else.
            name, value = body.get("name"), body.get("value")
            if not isinstance(name, str) or not 0 < len(name) <= _MAX_LIMIT:
                raise Refused(400, "name must name the limit the passkey sets.")
            if not isinstance(value, str) or len(value) > _MAX_LIMIT or "|" in value:
                raise Refused(400, "value must be the limit's value, or empty for the ceiling.")
            await desk.check_person_limits(conn["connection_id"], _one_limit(name, value))
            bound = f"{name}={value.strip()}"
        if purpose == "approve":
            named = body.get("approval_id")
            if not isinstance(named, str) or not 0 < len(named) <= _MAX_ID:
                raise Refused(400, "approval_id must name the approval the passkey approves.")
            bound = (await ours(conn, named))["approval_id"]
        at_party(request, persons.party)
        try:
            offered, challenge = await blocking(
                persons.authentication_options, conn["connection_id"]
            )
        except PasskeyError as error:
            raise Refused(403, f"The passkey was refused: {error}.") from None
        web.sessions.set_challenge(session, f"{challenge}|{bound}", str(purpose))
        return web.json(json.loads(offered))

    async def passkey_vouches(
        request: Request,
        session: ConsoleSession,
        conn: dict[str, Any],
        act: str,
        bound: str | None,
    ) -> str:
        """The assertion this post carries, verified for the session's connection against the
        challenge in flight for ``act`` on ``bound`` (``None``: on whatever it was bound to);
        what it was bound to. ``Refused`` otherwise."""
        web.csrf(session, request.headers.get("x-csrf-token"))
        taken = web.sessions.take_challenge(session, act)
        if taken is None:
            raise Refused(403, "No passkey challenge is in flight: start again.")
        challenge, _, named = taken.partition("|")
        if bound is not None and named != bound:
            raise Refused(403, "That passkey challenge was for another order: start again.")
        credential = (await request.body()).decode("utf-8", "replace")
        key = "limit" if act == "limits" else "approval_id"
        detail = {key: named} if named else {}
        journalled = LIMITS_SET if act == "limits" else act
        try:
            await blocking(
                lambda: persons.authenticate(
                    credential, challenge, act=journalled, detail=detail,
                    connection_id=conn["connection_id"],
                )
            )  # fmt: skip
        except PasskeyError as error:
            raise Refused(403, f"The passkey was refused: {error}.") from None
        return named

    async def approval_page(
        request: Request, session: ConsoleSession, conn: dict[str, Any]
    ) -> Response:
        approval = await ours(conn, request.path_params["approval_id"])
        return web.page(
            "approval.html", session, approval=approval, passkey=True, base=MINE, mine="overview"
        )

    async def approve(request: Request, session: ConsoleSession, conn: dict[str, Any]) -> Response:
        approval = await ours(conn, request.path_params["approval_id"])
        params = {"approval_id": approval["approval_id"]}
        if _is_json(request):
            await passkey_vouches(request, session, conn, "approve", approval["approval_id"])
            outcome = await desk.person_act(
                conn["connection_id"], OwnerAct.APPROVE, params, None, passkey=True
            )
            return web.json(outcome)
        form = await read_form(request)
        web.csrf(session, form.get("csrf"))
        code = form.get("owner_code") or None
        outcome = await desk.person_act(conn["connection_id"], OwnerAct.APPROVE, params, code)
        return web.page("decided.html", session, outcome=outcome, base=MINE, mine="overview")

    async def deny(request: Request, session: ConsoleSession, conn: dict[str, Any]) -> Response:
        web.csrf(session, (await read_form(request)).get("csrf"))
        approval = await ours(conn, request.path_params["approval_id"])
        outcome = await desk.person_deny(conn["connection_id"], approval["approval_id"])
        return web.page("decided.html", session, outcome=outcome, base=MINE, mine="overview")

    async def filings(request: Request, session: ConsoleSession, conn: dict[str, Any]) -> Response:
        asked = FilingFilter.of(dict(request.query_params))
        # The connection's own identity, whatever the query says: never another's filings.
        wanted = FilingFilter(identity_of(conn["connection_id"]), asked.symbol, asked.outcome)
        names = await desk.client_names()
        shown = await blocking(filings_view, desk.ledger, wanted, names)
        return web.page("mine_filings.html", session, filings=shown, mine="filings")

    async def positions(
        request: Request, session: ConsoleSession, conn: dict[str, Any]
    ) -> Response:
        read = await account_of(conn["connection_id"])() if account_of is not None else None
        return web.page("positions.html", session, mine="positions", **account_view(read))

    async def disconnect(
        request: Request, session: ConsoleSession, conn: dict[str, Any]
    ) -> Response:
        params = {"connection_id": conn["connection_id"]}
        if _is_json(request):
            await passkey_vouches(request, session, conn, "disconnect", "")
            outcome = await desk.person_act(
                conn["connection_id"], OwnerAct.DISCONNECT, params, None, passkey=True
            )
            web.sessions.end(session)
            return web.without_cookie(web.json(outcome))
        form = await read_form(request)
        web.csrf(session, form.get("csrf"))
        code = form.get("owner_code") or None
        outcome = await desk.person_act(conn["connection_id"], OwnerAct.DISCONNECT, params, code)
        web.sessions.end(session)
        return web.without_cookie(web.page("disconnected.html", None, outcome=outcome))

    async def sign_out(request: Request, session: ConsoleSession, conn: dict[str, Any]) -> Response:
        web.csrf(session, (await read_form(request)).get("csrf"))
        web.sessions.end(session)
        return web.without_cookie(web.redirect("/sign-in"))

    p, m = PREFIX, PREFIX + MINE
    return [
        Route(f"{p}/person/options", guarded(options, post=True, as_json=True), methods=["POST"]),
        Route(f"{p}/person/sign-in", guarded(sign_in, post=True, as_json=True), methods=["POST"]),
        Route(f"{p}/person/code-sign-in", guarded(code_sign_in, post=True), methods=["POST"]),
        Route(m, guarded(person(mine), post=False), methods=["GET"]),
        Route(
            f"{m}/passkey/options",
            guarded(person(act_options), post=True, as_json=True),
            methods=["POST"],
        ),
        Route(
            f"{m}/approvals/{{approval_id}}",
            guarded(person(approval_page), post=False),
            methods=["GET"],
        ),
        Route(
            f"{m}/approvals/{{approval_id}}/approve",
            guarded(person(approve), post=True),
            methods=["POST"],
        ),
        Route(
            f"{m}/approvals/{{approval_id}}/deny",
            guarded(person(deny), post=True),
            methods=["POST"],
        ),
        Route(f"{m}/filings", guarded(person(filings), post=False), methods=["GET"]),
        Route(f"{m}/positions", guarded(person(positions), post=False), methods=["GET"]),
        Route(f"{m}/limits", guarded(person(set_limit), post=True), methods=["POST"]),
        Route(f"{m}/disconnect", guarded(person(disconnect), post=True), methods=["POST"]),
        Route(f"{m}/sign-out", guarded(person(sign_out), post=True), methods=["POST"]),
    ]


def _one_limit(name: str, value: str) -> dict[str, object]:
    """One limit as a form or a passkey's challenge names it: a count as an integer, an
    amount as its text, empty for "up to the ceiling"."""
    value = value.strip()
    return {name.strip(): (int(value) if value.isdigit() else value) if value else None}


def _is_json(request: Request) -> bool:
    return request.headers.get("content-type", "").split(";")[0].strip() == "application/json"

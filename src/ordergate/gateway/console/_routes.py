"""The console's routes under ``/console``: sign-in (owner code or passkey), the approvals,
the passkeys, sign-out. Every act goes through the ``OwnerDesk``, as the command line's do.

==============================================  =============================================
route                                           what it needs
==============================================  =============================================
``GET  /console/sign-in``                       nothing (stores nothing: its CSRF token is a
                                                cookie of its own)
``POST /console/sign-in``                       CSRF, the owner code (counted by the lockout);
                                                answers the session's key to the page
``POST /console/passkey/options``               CSRF; ``{"purpose": "sign_in"}`` (opens a
                                                session not yet signed in, for the challenge)
                                                or, with a session, ``{"purpose": "approve",
                                                "approval_id"}`` (the challenge is bound to
                                                that approval)
``POST /console/passkey/sign-in``               CSRF, a passkey assertion; answers the key
``GET  /console/passkeys``                      a session (each passkey: added, last used)
``POST /console/passkey/register/options``      a session, CSRF, the owner code
``POST /console/passkey/register``              a session, CSRF, the registration response
                                                (kept once the owner's delay has passed)
``POST /console/passkeys/revoke``               a session, CSRF (no code: at once)
``GET  /console/delayed``                       a session (what waits, with its time left)
``POST /console/delayed/{id}/cancel``           a session, CSRF (no code)
``GET  /console/approvals`` (``…/list``: htmx)  a session
``GET  /console/approvals/{id}``                a session
``POST /console/approvals/{id}/approve``        a session, CSRF, the owner code or a passkey
                                                assertion (re-authentication for this act;
                                                above the owner's threshold, the code)
``POST /console/approvals/{id}/deny``           a session, CSRF
``POST /console/sign-out``                      a session, CSRF
``GET  /console/connections``                   a session
``POST /console/connections/{id}/revoke``       a session, CSRF
``POST /console/connections/{id}/approval-mode``  a session, CSRF: a person's connection holds
                                                 each order for them (on only)
``GET  /console/budget``                        a session
``POST /console/pause``                         a session, CSRF
``POST /console/resume``                        a session, CSRF, the owner code
``GET  /console/filings``                       a session (``identity``, ``symbol``,
                                                ``outcome``, ``reason`` filter)
``GET  /console/policy``                        a session (applying stays on the CLI)
``GET  /console/positions``                     a session (SVG equity curve, drawdown)
==============================================  =============================================

Passkey ceremonies are answered only at the relying party's origin (``localhost`` for a
console served at a loopback IP): anywhere else the owner is told where to open the console.

"A session" is a signed-in session **with its key** (``X-Console-Key``, ``_sessions``): the
cookie alone gets a page with no data (``loader.html``, 401) or, on a post, a 401.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ordergate.gateway._owner import digest_in
from ordergate.gateway.console._budget import AccountRead, BudgetRead
from ordergate.gateway.console._equity import account_view
from ordergate.gateway.console._filings import FilingFilter, filings_view
from ordergate.gateway.console._options import approvals_with_options
from ordergate.gateway.console._passkeys import PasskeyError, Passkeys
from ordergate.gateway.console._person_routes import MINE, person_routes
from ordergate.gateway.console._sessions import ConsoleSession
from ordergate.gateway.console._web import PRE_COOKIE, PREFIX, Refused, Web, at_party
from ordergate.gateway.console._web import read_form as _form
from ordergate.gateway.console._web import read_json as _json
from ordergate.gateway.custody import PersonPasskeys
from ordergate.gateway.desk import DeskError, OwnerDesk
from ordergate.owner import Credential, OwnerAct, act_digest
from ordergate.store import blocking

__all__ = ["console_routes"]

logger = logging.getLogger(__name__)

_MAX_ID = 40  # an approval id (a UUID); the stored challenge is 86 + 1 + this, of 128
MAX_REASON = 200

Handler = Callable[[Request], Awaitable[Response]]


def console_routes(
    desk: OwnerDesk,
    web: Web,
    passkeys: Passkeys,
    budget: BudgetRead,
    account: AccountRead,
    persons: PersonPasskeys | None = None,
    account_of: Callable[[str], AccountRead] | None = None,
) -> list[BaseRoute]:
    """The console's endpoints, to mount at the gateway's root (with ``persons``, a hosted
    rail's: each person's console of their own connection too, ``_person_routes``)."""

    def guarded(handler: Handler, *, post: bool, as_json: bool = False) -> Handler:
        async def serve(request: Request) -> Response:
            try:
                web.screen(request, post=post)
                return await handler(request)
            except Refused as refusal:
                return web.refused(refusal, as_json=as_json)
            except DeskError as error:
                return web.refused(Refused(error.status, error.message), as_json=as_json)
            except Exception as error:  # fail closed, echoing nothing submitted
                logger.warning("console %s failed: %s", request.url.path, type(error).__name__)
                return web.refused(Refused(500, "That could not be done."), as_json=as_json)

        return serve

    def owner(request: Request) -> ConsoleSession | None:
        session = web.session(request)
        return session if session is not None and session.owner else None

    def unbound(request: Request) -> Response:
        """The cookie without the key: a page with no data, whose script asks again with the
        tab's key (or goes to sign in); a post is refused."""
        if request.method == "POST":
            raise Refused(401, "This tab is not signed in to the console: sign in again.")
        return web.page("loader.html", None, 401)

    def signed_in(handler: Callable[[Request, ConsoleSession], Awaitable[Response]]) -> Handler:
        async def serve(request: Request) -> Response:
            session = web.session(request)
            if session is not None and session.owner:
                return await handler(request, session)
            if session is not None and session.person is not None:
                raise Refused(403, "These are the operator's pages: yours are at /console/mine.")
            if session is not None and session.signed_in:
                return unbound(request)
            if request.method == "POST":
                raise Refused(401, "Sign in to the console first.")
            return web.redirect("/sign-in")

        return serve

    # -- signing in -----------------------------------------------------------------------

    async def index(request: Request) -> Response:
        session = web.session(request)
        if session is not None and session.person is not None:
            return web.redirect(MINE)
        if session is not None and session.signed_in and not session.owner:
            return unbound(request)
        return web.redirect("/approvals" if session is not None and session.owner else "/sign-in")

    def sign_in_form(request: Request, status: int = 200, error: str | None = None) -> Response:
        """The sign-in page: no session stored; its CSRF token is its own cookie's value."""
        token = request.cookies.get(PRE_COOKIE, "")
        if not 0 < len(token) <= 128:
            token = secrets.token_urlsafe(32)
        page = web.page(
            "sign_in.html",
            None,
            status,
            csrf=token,
            passkey=passkeys.any(),
            person_passkeys=persons is not None and persons.party is not None,
            persons=persons is not None,
            error=error,
        )
        return web.with_pre_cookie(page, token)

    async def sign_in_page(request: Request) -> Response:
        if owner(request) is not None:
            return web.redirect("/approvals")
        return sign_in_form(request)

    def signed_in_page(raw: str, key: str) -> Response:
        """The page that hands the session's key to the tab's ``sessionStorage``."""
        page = web.page("signed_in.html", None, key=key, next=f"{PREFIX}/approvals")
        return web.with_cookie(page, raw)

    async def sign_in(request: Request) -> Response:
        form = await _form(request)
        web.pre_csrf(request, form.get("csrf"))
        try:
            # The code is spent on the sign-in of this page (its own CSRF token, hashed in).
            shown = act_digest(OwnerAct.CONSOLE_SIGN_IN, {"page": str(form.get("csrf") or "")})
            await desk.authorize(
                form.get("owner_code") or None, OwnerAct.CONSOLE_SIGN_IN, digest=shown
            )
        except DeskError as error:
            return sign_in_form(request, error.status, error.message)
        raw, key, _ = web.sessions.sign_in(web.session(request))
        return signed_in_page(raw, key)

    async def passkey_options(request: Request) -> Response:
        body = await _json(request)
        purpose = body.get("purpose")
        if purpose not in ("sign_in", "approve"):
            raise Refused(400, "purpose must be sign_in or approve.")
        presented = request.headers.get("x-csrf-token")
        session = web.session(request)
        opened = None
        bound = ""
        if purpose == "approve":
            if session is None or not session.owner:
                raise Refused(401, "Sign in to the console first.")
            web.csrf(session, presented)
            named = body.get("approval_id")
            if not isinstance(named, str) or not 0 < len(named) <= _MAX_ID:
                raise Refused(400, "approval_id must name the approval the passkey approves.")
            bound = named
        else:
            web.pre_csrf(request, presented)
        _at_party(request)
        if purpose == "sign_in" and (
            session is None or session.signed_in or not session.csrf_matches(presented)
        ):
            opened, session = web.sessions.open_anonymous(web.pre_csrf(request, presented))
        assert session is not None
        options, challenge = passkeys.authentication_options()
        web.sessions.set_challenge(session, _bind(challenge, bound), purpose)
        answer = web.json(json.loads(options))
        return web.with_cookie(answer, opened) if opened else answer

    async def passkey_sign_in(request: Request) -> Response:
        session = web.session(request)
        if session is None or session.signed_in:
            raise Refused(403, "Start the passkey sign-in again (no ceremony is in flight).")
        web.csrf(session, request.headers.get("x-csrf-token"))
        body = await request.body()
        _assert_passkey(session, "sign_in", body.decode("utf-8", "replace"))
        await desk.vouch(OwnerAct.CONSOLE_SIGN_IN, Credential.PASSKEY)
        raw, key, _ = web.sessions.sign_in(session)
        answer = web.json({"signed_in": True, "next": f"{PREFIX}/approvals", "key": key})
        return web.with_cookie(answer, raw)

    def _at_party(request: Request) -> None:
        at_party(request, passkeys.party)

    def _assert_passkey(
        session: ConsoleSession, purpose: str, credential: str, bound: str = ""
    ) -> None:
        taken = web.sessions.take_challenge(session, purpose)
        if taken is None:
            raise Refused(403, "No passkey challenge is in flight: start again.")
        challenge, _, named = taken.partition("|")
        if named != bound:
            raise Refused(403, "That passkey challenge was for another approval: start again.")
        try:
            passkeys.authenticate(credential, challenge)
        except PasskeyError as error:
            raise Refused(403, f"The passkey was refused: {error}.") from None

    async def sign_out(request: Request, session: ConsoleSession) -> Response:
        web.csrf(session, (await _form(request)).get("csrf"))
        web.sessions.end(session)
        return web.without_cookie(web.redirect("/sign-in"))

    # -- passkeys -------------------------------------------------------------------------

    async def passkeys_page(request: Request, session: ConsoleSession) -> Response:
        party = passkeys.party
        here = f"{request.url.scheme}://{request.url.netloc}".lower()
        waiting = [a for a in await desk.pending_acts() if a["act"] == "passkey_register"]
        return web.page(
            "passkeys.html",
            session,
            passkeys=passkeys.listed(),
            waiting=waiting,
            party=party,
            elsewhere=party is None or party.origin != here,
            page="passkeys",
        )

    async def revoke_passkey(request: Request, session: ConsoleSession) -> Response:
        form = await _form(request)
        web.csrf(session, form.get("csrf"))
        credential_id = form.get("credential_id", "")
        if await blocking(passkeys.revoke, credential_id):
            await blocking(
                desk.ledger.journal.append,
                identity="unverified",
                kind="passkey_revoked",
                why="a passkey was revoked on the owner's console",
                detail={"credential": credential_id[:12] + "…"},
            )
        return web.redirect("/passkeys")

    async def delayed_page(request: Request, session: ConsoleSession) -> Response:
        return web.page("delayed.html", session, acts=await desk.pending_acts(), page="delayed")

    async def cancel_delayed(request: Request, session: ConsoleSession) -> Response:
        web.csrf(session, (await _form(request)).get("csrf"))
        await desk.cancel_delayed(request.path_params["act_id"])
        return web.redirect("/delayed")

    async def register_options(request: Request, session: ConsoleSession) -> Response:
        web.csrf(session, request.headers.get("x-csrf-token"))
        _at_party(request)  # before the code is spent
        code = (await _json(request)).get("owner_code")
        if not isinstance(code, str | None):
            raise Refused(400, "owner_code must be a string.")
        shown = act_digest(OwnerAct.PASSKEY_REGISTER, {"session": session.digest})
        await desk.authorize(code or None, OwnerAct.PASSKEY_REGISTER, digest=shown)
        options, challenge = passkeys.registration_options()
        web.sessions.set_challenge(session, challenge, "register")
        return web.json(json.loads(options))

    async def register(request: Request, session: ConsoleSession) -> Response:
        web.csrf(session, request.headers.get("x-csrf-token"))
        challenge = web.sessions.take_challenge(session, "register")
        if challenge is None:
            raise Refused(403, "No passkey registration is in flight: enter the code again.")
        credential = (await request.body()).decode("utf-8", "replace")
        try:
            verified = passkeys.verify_registration(credential, challenge, label="passkey")
        except PasskeyError as error:
            raise Refused(400, f"The passkey was not registered: {error}.") from None
        summary = f"register a passkey ({verified['credential_id'][:12]}…) for the console"
        answer = await desk.delayed.defer(OwnerAct.PASSKEY_REGISTER, summary, verified)
        if answer is None:  # the owner set no delay
            await blocking(passkeys.keep, verified)
            return web.json({"registered": True})
        return web.json({"registered": False, **answer})

    # -- approvals ------------------------------------------------------------------------

    async def _approvals() -> list[dict[str, Any]]:
        """The operator's waiting orders, an option order's with its legs and figures."""
        return await blocking(approvals_with_options, desk.ledger, await desk.operators_approvals())

    async def approvals_page(request: Request, session: ConsoleSession) -> Response:
        return web.page("approvals.html", session, approvals=await _approvals(), page="approvals")

    async def approvals_list(request: Request, session: ConsoleSession) -> Response:
        return web.page("_approvals_list.html", session, approvals=await _approvals())

    async def approval_page(request: Request, session: ConsoleSession) -> Response:
        wanted = request.path_params["approval_id"]
        found = [a for a in await _approvals() if a["approval_id"] == wanted]
        if not found:
            raise Refused(404, "No approval with that id waits.")
        return web.page(
            "approval.html", session, approval=found[0], passkey=passkeys.any(), page="approvals"
        )

    async def approve(request: Request, session: ConsoleSession) -> Response:
        approval_id = request.path_params["approval_id"]
        kind = request.headers.get("content-type", "").split(";")[0].strip()
        if kind == "application/json":
            web.csrf(session, request.headers.get("x-csrf-token"))
            credential = (await request.body()).decode("utf-8", "replace")
            _assert_passkey(session, "approve", credential, approval_id)
            outcome = await desk.approve(approval_id, None, vouched=Credential.PASSKEY)
            return web.json(outcome)
        form = await _form(request)
        web.csrf(session, form.get("csrf"))
        outcome = await desk.approve(approval_id, form.get("owner_code") or None)
        return web.page("decided.html", session, outcome=outcome, page="approvals")

    async def deny(request: Request, session: ConsoleSession) -> Response:
        web.csrf(session, (await _form(request)).get("csrf"))
        outcome = await desk.deny(request.path_params["approval_id"])
        return web.page("decided.html", session, outcome=outcome, page="approvals")

    # -- connections ----------------------------------------------------------------------

    async def connections_page(request: Request, session: ConsoleSession) -> Response:
        return web.page(
            "connections.html", session, connections=await desk.connections(), page="connections"
        )

    async def revoke(request: Request, session: ConsoleSession) -> Response:
        web.csrf(session, (await _form(request)).get("csrf"))
        await desk.revoke(request.path_params["connection_id"])
        return web.redirect("/connections")

    async def hold_orders(request: Request, session: ConsoleSession) -> Response:
        web.csrf(session, (await _form(request)).get("csrf"))
        await desk.approval_mode(request.path_params["connection_id"], True)
        return web.redirect("/connections")

    # -- budget, pause and resume ---------------------------------------------------------

    async def budget_page(request: Request, session: ConsoleSession) -> Response:
        return web.page(
            "budget.html",
            session,
            budget=await budget(),
            desk=await desk.status(),
            page="budget",
        )

    async def pause(request: Request, session: ConsoleSession) -> Response:
        form = await _form(request)
        web.csrf(session, form.get("csrf"))
        reason = form.get("reason", "").strip()
        if len(reason) > MAX_REASON or not reason.isprintable():
            raise Refused(400, f"reason must be at most {MAX_REASON} printable characters.")
        cancel_open = form.get("cancel_open") == "on"
        paused = await desk.pause(reason or "paused on the console", cancel_open=cancel_open)
        if not cancel_open:
            return web.redirect("/budget")
        # The cancels' outcomes are shown once, on the page the pause leaves.
        return web.page(
            "budget.html",
            session,
            budget=await budget(),
            desk=await desk.status(),
            cancels=paused["cancels"],
            page="budget",
        )

    async def resume(request: Request, session: ConsoleSession) -> Response:
        form = await _form(request)
        web.csrf(session, form.get("csrf"))
        await desk.resume(form.get("owner_code") or None)
        return web.redirect("/budget")

    # -- filings and the policy -----------------------------------------------------------

    async def filings_page(request: Request, session: ConsoleSession) -> Response:
        wanted = FilingFilter.of(dict(request.query_params))
        names = await desk.client_names()
        persons = await desk.person_digests()
        shown = [
            filing
            for filing in await blocking(filings_view, desk.ledger, wanted, names)
            if digest_in(filing["identity"]) not in persons  # a person's are theirs alone
        ]
        return web.page("filings.html", session, filings=shown, wanted=wanted, page="filings")

    async def policy_page(request: Request, session: ConsoleSession) -> Response:
        policy = await desk.policy()
        pending = policy["pending"]
        diff = (
            policy_diff(policy["applied_text"], pending["text"])
            if pending and "error" not in pending
            else []
        )
        return web.page("policy.html", session, policy=policy, diff=diff, page="policy")

    async def positions_page(request: Request, session: ConsoleSession) -> Response:
        shown = account_view(await account())
        return web.page("positions.html", session, page="positions", **shown)

    p = PREFIX
    return [
        Route(f"{p}/positions", guarded(signed_in(positions_page), post=False), methods=["GET"]),
        Route(f"{p}/filings", guarded(signed_in(filings_page), post=False), methods=["GET"]),
        Route(f"{p}/policy", guarded(signed_in(policy_page), post=False), methods=["GET"]),
        Route(
            f"{p}/connections", guarded(signed_in(connections_page), post=False), methods=["GET"]
        ),
        Route(
            f"{p}/connections/{{connection_id}}/revoke",
            guarded(signed_in(revoke), post=True),
            methods=["POST"],
        ),
        Route(
            f"{p}/connections/{{connection_id}}/approval-mode",
            guarded(signed_in(hold_orders), post=True),
            methods=["POST"],
        ),
        Route(f"{p}/budget", guarded(signed_in(budget_page), post=False), methods=["GET"]),
        Route(f"{p}/pause", guarded(signed_in(pause), post=True), methods=["POST"]),
        Route(f"{p}/resume", guarded(signed_in(resume), post=True), methods=["POST"]),
        Route(p, guarded(index, post=False), methods=["GET"]),
        Route(f"{p}/sign-in", guarded(sign_in_page, post=False), methods=["GET"]),
        Route(f"{p}/sign-in", guarded(sign_in, post=True), methods=["POST"]),
        Route(
            f"{p}/passkey/options",
            guarded(passkey_options, post=True, as_json=True),
            methods=["POST"],
        ),
        Route(
            f"{p}/passkey/sign-in",
            guarded(passkey_sign_in, post=True, as_json=True),
            methods=["POST"],
        ),
        Route(
            f"{p}/passkey/register/options",
            guarded(signed_in(register_options), post=True, as_json=True),
            methods=["POST"],
        ),
        Route(
            f"{p}/passkey/register",
            guarded(signed_in(register), post=True, as_json=True),
            methods=["POST"],
        ),
        Route(f"{p}/passkeys", guarded(signed_in(passkeys_page), post=False), methods=["GET"]),
        Route(
            f"{p}/passkeys/revoke", guarded(signed_in(revoke_passkey), post=True), methods=["POST"]
        ),
        Route(f"{p}/delayed", guarded(signed_in(delayed_page), post=False), methods=["GET"]),
        Route(
            f"{p}/delayed/{{act_id}}/cancel",
            guarded(signed_in(cancel_delayed), post=True),
            methods=["POST"],
        ),
        Route(f"{p}/sign-out", guarded(signed_in(sign_out), post=True), methods=["POST"]),
        Route(f"{p}/approvals", guarded(signed_in(approvals_page), post=False), methods=["GET"]),
        Route(
            f"{p}/approvals/list", guarded(signed_in(approvals_list), post=False), methods=["GET"]
        ),
        Route(
            f"{p}/approvals/{{approval_id}}",
            guarded(signed_in(approval_page), post=False),
            methods=["GET"],
        ),
        Route(
            f"{p}/approvals/{{approval_id}}/approve",
            guarded(signed_in(approve), post=True),
            methods=["POST"],
        ),
        Route(
            f"{p}/approvals/{{approval_id}}/deny",
            guarded(signed_in(deny), post=True),
            methods=["POST"],
        ),
        *(person_routes(web, persons, desk, guarded, account_of) if persons is not None else ()),
        Mount(f"{p}/static", app=StaticFiles(directory=_static()), name="console-static"),
        Route("/favicon.ico", favicon, methods=["GET"]),
        Route(f"{p}/push-sw.js", push_worker, methods=["GET"]),
    ]


async def favicon(request: Request) -> Response:
    """The console's icon where browsers look for one first (an SVG: every current browser
    shows it)."""
    from pathlib import Path

    from starlette.responses import FileResponse

    return FileResponse(Path(_static()) / "favicon.svg", media_type="image/svg+xml")


async def push_worker(request: Request) -> Response:
    """The console's service worker, served beside its pages so that it may be registered for
    all of them (a worker's scope is at most its own path's): it shows a held order the rail
    pushes to the person's device."""
    from pathlib import Path

    from starlette.responses import FileResponse

    return FileResponse(
        Path(_static()) / "push-sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )


def _bind(challenge: str, approval_id: str) -> str:
    """The challenge as stored: bound to the approval it may approve (none for sign-in)."""
    return f"{challenge}|{approval_id}" if approval_id else challenge


def policy_diff(applied: str, pending: str) -> list[dict[str, str]]:
    """The pending policy file against the policy in force, line by line."""
    import difflib

    lines = []
    for line in difflib.ndiff(applied.splitlines(), pending.splitlines()):
        mark, text = line[:1], line[2:]
        if mark == "?":
            continue
        kind = {"+": "add", "-": "del"}.get(mark, "same")
        lines.append({"mark": mark.strip(), "text": text, "kind": kind})
    return lines


def _static() -> str:
    from pathlib import Path

    return str(Path(__file__).parent / "static")

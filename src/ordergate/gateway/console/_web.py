"""What every console request passes: no bearer token, its own origin, a session bound to its
key, a CSRF token.

- A request carrying ``Authorization`` is refused outright (403): an agent's token opens
  nothing here, and nothing here ever reads one.
- A ``POST`` must carry ``Origin`` equal to the gateway's own origin (the gateway's
  ``HostCheck`` has already refused foreign hosts and origins on every route; a console post
  without an origin is refused too).
- A page needs a signed-in session **and** its key in ``X-Console-Key`` (``_sessions``): the
  console's script sends it from the tab's ``sessionStorage`` on every request. Without a
  session the answer is a redirect to the sign-in page; with the cookie but not the key, a
  page that holds no data (``loader.html``, 401) whose script asks again with the key, or,
  with no key in the tab, goes to sign in; a post is refused (401).
- Every post checks a CSRF token, from the form field ``csrf`` or the ``X-CSRF-Token``
  header: the session's, or, on the sign-in page (which stores no session), the value of its
  own cookie (``PRE_COOKIE``).

On https (``--public-url https://…``) the session cookie is ``__Host-ordergate_console``
(Secure, ``Path=/``, no ``Domain``: no other host or path can set or shadow it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ordergate.core import command_hint, inert, usd
from ordergate.gateway.console._sessions import (
    MAX_AGE,
    ConsoleSession,
    ConsoleSessions,
    same_secret,
)
from ordergate.gateway.passkeys import RelyingParty

__all__ = [
    "COOKIE",
    "HOST_COOKIE",
    "KEY_HEADER",
    "PREFIX",
    "PRE_COOKIE",
    "Refused",
    "Web",
    "at_party",
    "read_form",
    "read_json",
]

PREFIX = "/console"
COOKIE = "ordergate_console"
HOST_COOKIE = "__Host-ordergate_console"
PRE_COOKIE = "ordergate_console_sign_in"
KEY_HEADER = "x-console-key"
_FORM = "application/x-www-form-urlencoded"
_MAX_FORM = 4096
_PRE_AGE = 3600
# ``same-origin``, not ``no-referrer``: under ``no-referrer`` a browser sends ``Origin: null``
# with a form post (Fetch, "serializing a request origin"), and every console form is refused.
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
}


def when(value: str | None) -> str:
    """An ISO-8601 instant as a person reads it (``2026-12-01 15:15 UTC``); ``—`` for none,
    and anything else as it is."""
    if not value:
        return "—"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_form(request: Request) -> dict[str, str]:
    """The console form a post carries (its text fields); ``Refused`` for anything else."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != _FORM:
        raise Refused(415, "Send the console's form.")
    form = await request.form(max_files=0, max_fields=16, max_part_size=_MAX_FORM)
    return {key: value for key, value in form.items() if isinstance(value, str)}


async def read_json(request: Request) -> dict[str, Any]:
    """The JSON object a post carries; ``Refused`` for anything else."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/json":
        raise Refused(415, "Send application/json.")
    try:
        body = json.loads(await request.body() or b"{}")
    except (ValueError, RecursionError):
        raise Refused(400, "The body must be JSON.") from None
    if not isinstance(body, dict):
        raise Refused(400, "The body must be a JSON object.")
    return body


def at_party(request: Request, party: RelyingParty | None) -> None:
    """Refuse a passkey ceremony anywhere but at the relying party's origin."""
    if party is None:
        raise Refused(
            400,
            "Passkeys need a console at localhost or a domain name, never an IP address: "
            "give the gateway a domain name (--public-url).",
        )
    if request.headers.get("origin", "").lower() != party.origin:
        raise Refused(
            400,
            f"Passkeys work only at {party.origin}{PREFIX} (their relying party is "
            f"{party.rp_id}, never an IP address): open the console there.",
        )


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _inert_output(value: Any) -> Any:
    """Every value a template prints, made inert (``ordergate.core.inert``) before it is
    HTML-escaped: autoescaping stops markup, not the control characters and newlines of a
    model's text. The escapes ``inert`` writes are plain text, safe inside markup too."""
    if isinstance(value, str):
        # Markup (already escaped) stays Markup: ``type(value)`` keeps its class.
        return type(value)(inert(value)) if hasattr(value, "__html__") else inert(value)
    return value


@dataclass
class Web:
    sessions: ConsoleSessions
    public_url: str
    also_origins: tuple[str, ...] = ()
    """Another origin the console is served at: ``localhost`` for a loopback IP (passkeys)."""

    def __post_init__(self) -> None:
        self.origin = origin_of(self.public_url)
        self.origins = frozenset({self.origin, *self.also_origins})
        self.secure = self.public_url.lower().startswith("https://")
        self.cookie = HOST_COOKIE if self.secure else COOKIE
        self.cookie_path = "/" if self.secure else PREFIX
        self.templates = Environment(
            loader=FileSystemLoader(Path(__file__).parent / "templates"),
            autoescape=select_autoescape(default=True),
            finalize=_inert_output,
        )
        self.templates.filters["when"] = when
        self.templates.filters["usd"] = usd
        # A command a page names is shown as the owner types it.
        self.templates.globals["command"] = command_hint

    def screen(self, request: Request, *, post: bool) -> None:
        if "authorization" in request.headers:
            raise Refused(403, "The console is for the owner's browser: a token opens nothing.")
        if post and request.headers.get("origin", "").lower() not in self.origins:
            raise Refused(403, "A console form must come from the console's own origin.")

    def session(self, request: Request) -> ConsoleSession | None:
        """The session the cookie names (``bound`` when the request carries its key)."""
        return self.sessions.find(request.cookies.get(self.cookie), request.headers.get(KEY_HEADER))

    def csrf(self, session: ConsoleSession, presented: str | None) -> None:
        if not session.csrf_matches(presented):
            raise Refused(403, "The form's CSRF token is missing or wrong: reload the page.")

    def pre_csrf(self, request: Request, presented: str | None) -> str:
        """The sign-in page's CSRF token, checked against its cookie; raises ``Refused``."""
        expected = request.cookies.get(PRE_COOKIE, "")
        if not expected or len(expected) > 128 or not same_secret(expected, presented):
            raise Refused(403, "The form's CSRF token is missing or wrong: reload the page.")
        return expected

    def with_pre_cookie(self, response: Response, value: str) -> Response:
        response.set_cookie(
            PRE_COOKIE,
            value,
            max_age=_PRE_AGE,
            path=PREFIX,
            httponly=True,
            secure=self.secure,
            samesite="strict",
        )
        return response

    def page(
        self,
        name: str,
        session: ConsoleSession | None,
        status: int = 200,
        **values: Any,
    ) -> HTMLResponse:
        values.setdefault("csrf", session.csrf if session else "")
        html = self.templates.get_template(name).render(prefix=PREFIX, **values)
        return HTMLResponse(html, status_code=status, headers=_HEADERS)

    def json(self, body: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(body, status_code=status, headers=_HEADERS)

    def redirect(self, path: str) -> RedirectResponse:
        return RedirectResponse(f"{PREFIX}{path}", status_code=303, headers=_HEADERS)

    def refused(self, refusal: Refused, *, as_json: bool) -> Response:
        if as_json:
            return self.json({"error": refusal.message}, refusal.status)
        return self.page("refused.html", None, refusal.status, message=refusal.message)

    def with_cookie(self, response: Response, raw: str) -> Response:
        response.set_cookie(
            self.cookie,
            raw,
            max_age=int(MAX_AGE.total_seconds()),
            path=self.cookie_path,
            httponly=True,
            secure=self.secure,
            samesite="strict",
        )
        return response

    def without_cookie(self, response: Response) -> Response:
        response.delete_cookie(
            self.cookie, path=self.cookie_path, httponly=True, secure=self.secure, samesite="strict"
        )
        return response

"""The HTML the authorization endpoint shows: the consent page and the error page.

Every value that came from a request is HTML-escaped. Both pages send the shared
``PAGE_HEADERS`` (``ordergate.oauth``): no framing, no caching, no referrer.
"""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from ordergate.oauth import PAGE_HEADERS, S256
from ordergate.sandbox.oauth._grants import AuthorizationRequest
from ordergate.sandbox.oauth._rfc8414 import AUTHORIZATION_PATH

__all__ = ["consent_page", "error_page"]

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}"
    ".note{background:#fff4d6;border:1px solid #e0b84d;padding:.6rem .8rem;border-radius:4px}"
    "button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}"
)


def _page(title: str, body: str, *, status_code: int) -> HTMLResponse:
    html = (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )
    return HTMLResponse(html, status_code=status_code, headers=PAGE_HEADERS)


def _hidden(name: str, value: str | None) -> str:
    if value is None:
        return ""
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def consent_page(request: AuthorizationRequest, *, nonce: str) -> HTMLResponse:
    """The sign-in/consent page for ``request``; its form posts back with ``nonce``."""
    destination = urlsplit(request.redirect_uri).netloc
    fields = "".join(
        [
            _hidden("response_type", "code"),
            _hidden("client_id", request.client_id),
            _hidden("redirect_uri", request.redirect_uri),
            _hidden("code_challenge", request.code_challenge),
            _hidden("code_challenge_method", S256),
            _hidden("scope", request.scope),
            _hidden("resource", request.resource),
            _hidden("state", request.state),
            _hidden("nonce", nonce),
        ]
    )
    body = (
        "<h1>Sign in to the sandbox venue</h1>"
        '<p class="note"><strong>Sandbox venue — no real account.</strong> '
        "Nothing here touches real money.</p>"
        f"<p>An application wants to trade this sandbox account (scope "
        f"<code>{escape(request.scope)}</code>). If you approve, you go back to "
        f"<code>{escape(destination)}</code>.</p>"
        f'<form method="post" action="{AUTHORIZATION_PATH}">{fields}'
        '<button type="submit" name="decision" value="approve">Approve</button>'
        '<button type="submit" name="decision" value="deny">Deny</button>'
        "</form>"
    )
    return _page("Sandbox venue — sign in", body, status_code=200)


def error_page(problem: str, *, status_code: int = 400) -> HTMLResponse:
    """A page that names the problem, for errors that must not be redirected."""
    body = (
        "<h1>This sign-in request cannot continue</h1>"
        f'<p id="problem">{escape(problem)}</p>'
        "<p>Start again from the application that sent you here.</p>"
    )
    return _page("Sandbox venue — sign-in error", body, status_code=status_code)

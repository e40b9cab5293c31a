"""The HTML the gateway's authorization endpoint shows: the consent page and the error page.

The consent page is where the owner decides. It says what the gateway does, what it holds and
what it never does, names the client (as it registered itself, so in quotes and escaped: a
name is a claim, not an identity) and the host its answer goes back to. Its form posts back
the pending authorization's id and the page's one-time nonce, with the owner's passphrase
when the gateway requires one.

Every value that came from a request is HTML-escaped. Both pages forbid framing, are never
cached and send no referrer (``PAGE_HEADERS``, shared in ``ordergate.oauth``).
"""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from ordergate.gateway.oauth._paths import CONSENT_PATH
from ordergate.oauth import PAGE_HEADERS

__all__ = ["consent_page", "error_page"]

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}"
    "h2{font-size:1rem;margin:1.2rem 0 .3rem}"
    ".client{background:#eef3fb;border:1px solid #9fb6da;padding:.6rem .8rem;border-radius:4px}"
    "label{display:block;margin:1rem 0}"
    "button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}"
)


_HOLDS_OWNER = "Your own upstream brokerage session, on this machine."
_HOLDS_SEALED = (
    "The brokerage session you open when you sign in at the broker next, sealed at rest "
    "(AES-256-GCM) and used only to forward this application's calls."
)


def _page(title: str, body: str, *, status_code: int) -> HTMLResponse:
    html = (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )
    return HTMLResponse(html, status_code=status_code, headers=PAGE_HEADERS)


def _hidden(name: str, value: str) -> str:
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def consent_page(
    *,
    client_name: str,
    redirect_uri: str,
    pending_id: str,
    nonce: str,
    passphrase_required: bool,
    signs_in: bool = False,
    profiles: tuple[tuple[str, str], ...] = (),
) -> HTMLResponse:
    """The page on which the owner approves or denies one client's authorization request."""
    name = f"“{escape(client_name)}”" if client_name else "An application that gave no name"
    host = escape(urlsplit(redirect_uri).netloc)
    approve = "Approve and sign in at the broker" if signs_in else "Approve"
    passphrase = (
        '<label>Owner passphrase <input type="password" name="passphrase" '
        'autocomplete="current-password" required></label>'
        if passphrase_required
        else ""
    )
    body = (
        "<h1>Connect an application to this ordergate gateway</h1>"
        f'<p class="client" id="client"><strong>{name}</strong> asks to use this gateway. '
        f'If you approve, you go back to <code id="redirect-host">{host}</code>.</p>'
        "<h2>What the gateway does</h2>"
        "<p>It files every order the application sends in its ledger, checks it against your "
        "policy and limits, and places it only as filed. Reads (quotes, positions, orders, "
        "reviews) pass through unchanged.</p>"
        "<h2>What it holds</h2>"
        f"<p>{_HOLDS_SEALED if signs_in else _HOLDS_OWNER} The application never receives it. "
        "It also keeps a ledger of every filing and its outcome.</p>"
        "<h2>What it never does</h2>"
        "<p>It never moves money, never places options or crypto orders, and never shows a "
        "token to the application or to anyone else.</p>"
        f'<form method="post" action="{CONSENT_PATH}">'
        f"{_hidden('pending', pending_id)}{_hidden('nonce', nonce)}{_profile_choice(profiles)}"
        f"{passphrase}"
        f'<button type="submit" name="decision" value="approve">{approve}</button>'
        # Denying needs no passphrase: the browser must not insist on the field for it.
        '<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>'
        "</form>"
    )
    return _page("ordergate — connect an application", body, status_code=200)


def _profile_choice(profiles: tuple[tuple[str, str], ...]) -> str:
    """A ``<select name="profile">`` of what the application may do; the first is chosen."""
    if not profiles:
        return ""
    options = "".join(
        f'<option value="{escape(name)}"{" selected" if index == 0 else ""}>'
        f"{escape(name)} — {escape(description)}</option>"
        for index, (name, description) in enumerate(profiles)
    )
    return (
        '<label>What this application may do <select name="profile" id="profile">'
        f"{options}</select></label>"
    )


def error_page(problem: str, *, status_code: int = 400) -> HTMLResponse:
    """A page that names the problem, for errors that must not be redirected."""
    body = (
        "<h1>This request cannot continue</h1>"
        f'<p id="problem">{escape(problem)}</p>'
        "<p>Nothing was approved. Start again from the application that sent you here.</p>"
    )
    return _page("ordergate — authorization error", body, status_code=status_code)

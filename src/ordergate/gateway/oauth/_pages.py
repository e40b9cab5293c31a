"""The gateway's wording of its two pages (``ordergate.oauth.ConsentPages``).

The consent page is where the owner decides. It says what the gateway does, what it holds and
what it never does; what Robinhood does and does not (seed 000 §3 and §9, seed 001): Robinhood
is the custodian, the gateway holds a revocable trading token, Robinhood's grant has no
read-only scope (so ``monitor`` is the gateway's promise, not Robinhood's), and Robinhood's
own trade-approval setting is off by default for an MCP account and where to turn it on.
Each of those four statements is an element with its own id (``STATEMENTS``). It names the
client (as it registered itself, so in quotes and escaped: a name is a claim, not an
identity) and the host its answer goes back to; when that is an app's private-use scheme
(``cursor://…``, RFC 8252 §7.1) rather than a web address, it warns that the answer goes to an
app on this device (``APP_REDIRECT``, element ``app-redirect``): whichever app claims that
scheme here receives it. Its form is the shared one: the pending
authorization's id and the page's nonce, the profile choice, and what the consent hook asks
for (the owner's passphrase, where one is required).

Every value that came from a request is HTML-escaped.
"""

from __future__ import annotations

from html import escape

from starlette.responses import HTMLResponse, Response

from ordergate.oauth import (
    ConsentView,
    consent_form,
    html_page,
    is_private_use,
    redirect_destination,
)

__all__ = ["APP_REDIRECT", "STATEMENTS", "GatewayPages", "error_page"]

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}"
    "h2{font-size:1rem;margin:1.2rem 0 .3rem}"
    ".client{background:#eef3fb;border:1px solid #9fb6da;padding:.6rem .8rem;border-radius:4px}"
    ".notice{background:#fff4d6;border:1px solid #e0b84d;padding:.6rem .8rem;border-radius:4px}"
    "label{display:block;margin:1rem 0}"
    "button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}"
)

_HOLDS_OWNER = "Your own upstream brokerage session, on this machine."
_HOLDS_SEALED = (
    "The brokerage session you open when you sign in at the broker next, sealed at rest "
    "(AES-256-GCM) and used only to forward this application's calls."
)

APP_REDIRECT = (
    "This answer goes to an app on this device, not to a web site: whichever app has claimed "
    "that link scheme here receives it. Approve only if you started this yourself, just now, "
    "from that app."
)

# What the person is promised about Robinhood, each statement by its element id.
STATEMENTS = {
    "custodian": (
        "Robinhood is the custodian: your money and your shares stay in your Robinhood "
        "account, and Robinhood places and settles every order. The gateway never holds a "
        "dollar or a share."
    ),
    "revocable-token": (
        "What the gateway holds is a trading token for that account, never your Robinhood "
        "password. It is revocable: revoke this access in the Robinhood app and the token "
        "stops working at once, whatever the gateway does."
    ),
    "no-read-only-scope": (
        "Robinhood's grant has one scope and no read-only one: the token can trade. So a "
        "profile that only reads, such as monitor, is the gateway's promise, kept by its "
        "checks on every call, not a limit Robinhood enforces."
    ),
    "trade-approval": (
        "Robinhood has its own trade-approval setting: when it is on, Robinhood asks you in "
        "its app to approve each order an agent places. It is off by default for an account "
        "connected over MCP, as this one is. To turn it on, open the Robinhood app and switch "
        "on trade approval in the settings of the account your agents trade."
    ),
}


def error_page(problem: str, *, status_code: int = 400) -> HTMLResponse:
    """A page that names the problem, for errors that must not be redirected."""
    body = (
        "<h1>This request cannot continue</h1>"
        f'<p id="problem">{escape(problem)}</p>'
        "<p>Nothing was approved. Start again from the application that sent you here.</p>"
    )
    return html_page("ordergate — authorization error", body, style=_STYLE, status_code=status_code)


class GatewayPages:
    def consent(self, view: ConsentView) -> Response:
        """The page on which the owner approves or denies one client's authorization request."""
        client_name = view.client.client_name
        name = f"“{escape(client_name)}”" if client_name else "An application that gave no name"
        redirect_uri = view.authorization.redirect_uri
        host = escape(redirect_destination(redirect_uri))
        app = (
            f'<p class="notice" id="app-redirect">{escape(APP_REDIRECT)}</p>'
            if is_private_use(redirect_uri)
            else ""
        )
        approve = "Approve and sign in at the broker" if view.signs_in else "Approve"
        robinhood = "".join(
            f'<p id="{key}">{escape(statement)}</p>' for key, statement in STATEMENTS.items()
        )
        body = (
            "<h1>Connect an application to this ordergate gateway</h1>"
            f'<p class="client" id="client"><strong>{name}</strong> asks to use this gateway. '
            f'If you approve, you go back to <code id="redirect-host">{host}</code>.</p>'
            f"{app}"
            "<h2>What the gateway does</h2>"
            "<p>It files every order the application sends in its ledger, checks it against "
            "your policy and limits, and places it only as filed. Reads (quotes, positions, "
            "orders, reviews) pass through unchanged.</p>"
            "<h2>What it holds</h2>"
            f"<p>{_HOLDS_SEALED if view.signs_in else _HOLDS_OWNER} The application never "
            "receives it. It also keeps a ledger of every filing and its outcome.</p>"
            "<h2>What it never does</h2>"
            "<p>It never moves money, never places options or crypto orders, and never shows a "
            "token to the application or to anyone else.</p>"
            f'<h2>What Robinhood does, and does not</h2><section id="robinhood">{robinhood}'
            "</section>"
            f"{consent_form(view, approve=approve)}"
        )
        return html_page("ordergate — connect an application", body, style=_STYLE, status_code=200)

    def error(self, problem: str, *, status_code: int = 400) -> Response:
        return error_page(problem, status_code=status_code)

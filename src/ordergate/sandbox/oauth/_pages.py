"""The venue's wording of its two sign-in pages (``ordergate.oauth.ConsentPages``).

The consent page says plainly that this is the sandbox, names the scope and the host the
answer goes back to; its form is the shared one (``consent_form``), which on the venue posts
back to ``/oauth`` carrying the request. Every value that came from a request is escaped.
"""

from __future__ import annotations

from html import escape

from starlette.responses import Response

from ordergate.oauth import ConsentView, consent_form, html_page, redirect_destination

__all__ = ["VenuePages"]

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}"
    ".note{background:#fff4d6;border:1px solid #e0b84d;padding:.6rem .8rem;border-radius:4px}"
    "button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}"
)


class VenuePages:
    def consent(self, view: ConsentView) -> Response:
        destination = redirect_destination(view.authorization.redirect_uri)
        # Named users sign in with their name and password (the form's fields): it is theirs.
        whose = "your sandbox accounts" if view.prompt.fields else "this sandbox account"
        body = (
            "<h1>Sign in to the sandbox venue</h1>"
            '<p class="note"><strong>Sandbox venue — no real account.</strong> '
            "Nothing here touches real money.</p>"
            f"<p>An application wants to trade {whose} (scope "
            f"<code>{escape(view.authorization.scope)}</code>). If you approve, you go back to "
            f"<code>{escape(destination)}</code>.</p>"
            f"{consent_form(view)}"
        )
        return html_page("Sandbox venue — sign in", body, style=_STYLE, status_code=200)

    def error(self, problem: str, *, status_code: int = 400) -> Response:
        body = (
            "<h1>This sign-in request cannot continue</h1>"
            f'<p id="problem">{escape(problem)}</p>'
            "<p>Start again from the application that sent you here.</p>"
        )
        return html_page(
            "Sandbox venue — sign-in error", body, style=_STYLE, status_code=status_code
        )

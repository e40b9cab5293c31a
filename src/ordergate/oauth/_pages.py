"""The sign-in pages: what every page sends, the consent form, and the pages hook.

Each server words its own pages (``ConsentPages``: the venue's, the gateway's); the form on
the consent page is one (``consent_form``): the hidden fields that carry the request back
(the pending id and nonce, and where the form posts to the authorization path itself, the
request), the profile choice, what the consent hook asks for, and Approve / Deny. Deny never
makes the browser insist on a field (``formnovalidate``): denying needs nothing.

Every value that came from a request is HTML-escaped. Every page forbids framing (a consent
page inside someone else's frame is a click-jacking target), is never cached and sends its
referrer only to its own origin (the page URL carries the request): ``PAGE_HEADERS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Protocol

from starlette.responses import HTMLResponse, Response

from ordergate.oauth._consent import ConsentPrompt, ProfileChoice
from ordergate.oauth._storage import Authorization, Client

__all__ = [
    "PAGE_HEADERS",
    "ConsentPages",
    "ConsentView",
    "consent_form",
    "hidden_input",
    "html_page",
]

PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Frame-Options": "DENY",
    # No form-action: browsers apply it to the redirect that follows the form post too, and
    # that redirect goes to the client's loopback or https URI.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "frame-ancestors 'none'",
    # ``same-origin``, not ``no-referrer``: under ``no-referrer`` a browser posts the form with
    # ``Origin: null``, which the Origin check refuses (no real browser could approve); the
    # page's URL still never leaves this origin as a referrer.
    "Referrer-Policy": "same-origin",
}


@dataclass(frozen=True, slots=True)
class ConsentView:
    """Everything a consent page shows: who asks, for what, and the form's parts."""

    client: Client
    authorization: Authorization
    action: str
    hidden: tuple[tuple[str, str], ...]
    profiles: ProfileChoice | None
    prompt: ConsentPrompt
    signs_in: bool
    """Whether approving sends the person on to sign in at the upstream first."""


class ConsentPages(Protocol):
    """A server's wording of its two pages."""

    def consent(self, view: ConsentView) -> Response:
        """The page on which the person approves or denies (status 200)."""
        ...

    def error(self, problem: str, *, status_code: int = 400) -> Response:
        """A page naming ``problem``, for an answer that must not be redirected."""
        ...


def html_page(title: str, body: str, *, style: str, status_code: int) -> HTMLResponse:
    """A whole page (``title`` is escaped here; ``body`` must already be)."""
    html = (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{style}</style></head>"
        f"<body>{body}</body></html>\n"
    )
    return HTMLResponse(html, status_code=status_code, headers=PAGE_HEADERS)


def hidden_input(name: str, value: str) -> str:
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def consent_form(view: ConsentView, *, approve: str = "Approve") -> str:
    """The consent page's ``<form>``, its Approve button labelled ``approve``."""
    hidden = "".join(hidden_input(name, value) for name, value in view.hidden)
    return (
        f'<form method="post" action="{escape(view.action)}">{hidden}'
        f"{_profile_choice(view.profiles)}{_prompt(view.prompt)}"
        f'<button type="submit" name="decision" value="approve">{escape(approve)}</button>'
        '<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>'
        "</form>"
    )


def _profile_choice(profiles: ProfileChoice | None) -> str:
    """A ``<select name="profile">``, the default first and selected."""
    if profiles is None:
        return ""
    options = "".join(
        f'<option value="{escape(name)}"{" selected" if name == profiles.default else ""}>'
        f"{escape(name)} — {escape(description)}</option>"
        for name, description in profiles.options
    )
    return (
        f'<label>{escape(profiles.label)} <select name="profile" id="profile">'
        f"{options}</select></label>"
    )


def _prompt(prompt: ConsentPrompt) -> str:
    notice = (
        f'<p class="notice" id="consent-notice">{escape(prompt.notice)}</p>'
        if prompt.notice is not None
        else ""
    )
    fields = "".join(
        f"<label>{escape(field.label)} "
        f'<input type="{field.kind}" name="{escape(field.name)}" id="{escape(field.name)}" '
        f'autocomplete="{escape(field.autocomplete)}"{" required" if field.required else ""}>'
        "</label>"
        for field in prompt.fields
    )
    return notice + fields

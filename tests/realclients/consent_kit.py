"""The person at the gateway's consent page, for clients driven from outside the test
process: opens the authorization URL the client produced, types the owner code where the
page asks for it, presses Approve, and follows the redirect back to the client (which, for
a client listening on a loopback callback, is how it receives the code)."""

from __future__ import annotations

import httpx2
from oauth_testkit import parse_form

BOUND_S = 30.0


def approve(
    authorization_url: str, owner_code: str, *, follow: bool, profile: str | None = None
) -> str:
    """Approve at ``authorization_url`` (choosing ``profile`` when given); the redirect's
    ``Location``, fetched first when ``follow`` (the client's callback then has the code)."""
    with httpx2.Client(timeout=BOUND_S) as browser:
        page = browser.get(authorization_url)
        assert page.status_code == 200, page.text
        form = parse_form(page.text)
        assert ("decision", "approve") in form.buttons
        (tag,) = form.forms
        fields = {**form.hidden, "decision": "approve"}
        if profile is not None:
            fields["profile"] = profile
        if 'name="owner_code"' in page.text:
            fields["owner_code"] = owner_code
        answer = browser.post(page.url.join(tag["action"] or ""), data=fields)
        assert answer.status_code == 302, answer.text
        location = answer.headers["location"]
        if follow:
            back = browser.get(location)
            assert back.status_code == 200, back.text
    return location

"""The page the upstream sign-in ends on, on a hosted rail: the person enrols their own code
for the new connection (its QR code, shown once) and, where the rail has a relying party, may
register a passkey for it first (``_person_passkeys``).

The passkey's two steps post JSON back to the callback path (the enrolment cookie's path) from
a script inline in the page, allowed by a nonce of its own in the page's CSP: ``{"step":
"options", "enrolment"}`` answers the options and the ceremony sealed by the rail,
``{"step": "register", "ceremony", "credential"}`` keeps the passkey.
"""

from __future__ import annotations

import io
import secrets
from html import escape

import qrcode
import qrcode.image.svg
from starlette.responses import HTMLResponse

from ordergate.gateway.custody._person import PERSON_FIELD
from ordergate.oauth import html_page

__all__ = ["enrolment_page"]

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}"
    "code{word-break:break-all}.problem{color:#a00}svg{width:14rem;height:14rem}"
)

# The WebAuthn registration in the browser; the rail verifies everything.
_SCRIPT = """(function () {
  "use strict";
  const action = document.getElementById("passkey-enrol").dataset.action;
  const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const bytes = (text) => Uint8Array.from(
    atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const say = (text) => { document.getElementById("passkey-status").textContent = text; };
  async function post(payload) {
    const response = await fetch(action, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || ("HTTP " + response.status));
    return answer;
  }
  async function enrol(button) {
    say("Waiting for the passkey…");
    const enrolment = document.querySelector("input[name=enrolment]").value;
    const begun = await post({ step: "options", enrolment: enrolment });
    const options = begun.options;
    options.challenge = bytes(options.challenge);
    options.user.id = bytes(options.user.id);
    (options.excludeCredentials || []).forEach((c) => { c.id = bytes(c.id); });
    const made = await navigator.credentials.create({ publicKey: options });
    const r = made.response;
    const credential = { id: made.id, rawId: b64(made.rawId), type: made.type,
      response: { clientDataJSON: b64(r.clientDataJSON),
        attestationObject: b64(r.attestationObject) }, clientExtensionResults: {} };
    await post({ step: "register", ceremony: begun.ceremony, credential: credential });
    button.disabled = true;
    say("Your passkey now signs you in to this connection's console.");
  }
  document.getElementById("passkey-enrol").addEventListener("click", (event) => {
    enrol(event.currentTarget).catch((error) => say("Refused: " + error.message));
  });
})();"""


def _svg_qr(text: str) -> str:
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage)
    out = io.BytesIO()
    image.save(out)
    svg = out.getvalue().decode("utf-8")
    return svg[svg.index("<svg") :]


def _passkey_part(action: str, nonce: str) -> str:
    return (
        "<h2>A passkey (optional)</h2>"
        "<p>A passkey on this device signs you in to your connection's console and approves "
        "its held orders. Add it before you confirm your code.</p>"
        f'<button type="button" id="passkey-enrol" name="passkey" value="add" '
        f'data-action="{escape(action)}">'
        "Add a passkey</button>"
        '<p id="passkey-status" aria-live="polite"></p>'
        f'<script nonce="{nonce}">{_SCRIPT}</script>'
    )


def enrolment_page(
    uri: str,
    *,
    sealed: str,
    action: str,
    connection_id: str,
    problem: str | None = None,
    passkeys: bool = False,
) -> HTMLResponse:
    """The page on which the person enrols their own code for the new connection (and, with
    ``passkeys``, may register a passkey for it); it names the connection's id, with which
    the person signs in to its console by code."""
    said = f'<p class="problem" id="problem">{escape(problem)}</p>' if problem else ""
    nonce = secrets.token_urlsafe(16)
    body = (
        "<h1>Your own code for this connection</h1>"
        "<p>You own this connection. Approving its held orders and its other owner acts "
        "needs a code from your authenticator app, not the rail operator's. Scan this once "
        "(it is not shown again), then type the code your app shows.</p>"
        f'<div id="qr">{_svg_qr(uri)}</div>'
        f'<p>Or enter it by hand: <code id="otpauth">{escape(uri)}</code></p>'
        "<p>Your connection's id (keep it: with your code it signs you in to your "
        f'console): <code id="connection-id">{escape(connection_id)}</code></p>'
        f"{said}"
        f'<form method="post" action="{escape(action)}">'
        f'<input type="hidden" name="enrolment" value="{escape(sealed)}">'
        f'<label>Code <input name="{PERSON_FIELD}" autocomplete="one-time-code" '
        'inputmode="numeric" required></label> '
        '<button type="submit" name="decision" value="confirm">Confirm</button></form>'
        f"{_passkey_part(action, nonce) if passkeys else ''}"
    )
    response = html_page("ordergate — your code", body, style=_STYLE, status_code=200)
    # ``html_page``'s ``same-origin`` referrer policy stays: under ``no-referrer`` a browser
    # posts the form (and the passkey's fetches) with ``Origin: null``, which is refused.
    response.headers["cache-control"] = "no-store"
    if passkeys:
        response.headers["content-security-policy"] = (
            f"default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; "
            "connect-src 'self'; frame-ancestors 'none'"
        )
    return response

"""RFC 8252, OAuth 2.0 for Native Apps: the redirect URIs the shared public client may use.

Registration on the live server hands everybody the same client id and records nothing, so
there is no registered redirect URI to compare with. What it accepts instead is a rule:
http to a loopback address on any port and path (§7.3, with ``localhost`` tolerated as the
live server does), or any https URL (§7.2). Everything else is refused before any redirect is
made, because redirecting to an unchecked URI would hand the response to whoever owns it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["LOOPBACK_HOSTS", "MAX_REDIRECT_URI_LENGTH", "redirect_uri_problem"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
MAX_REDIRECT_URI_LENGTH = 2048


def redirect_uri_problem(uri: str) -> str | None:
    """Why ``uri`` may not receive an authorization response, or ``None`` when it may."""
    if len(uri) > MAX_REDIRECT_URI_LENGTH:
        return "redirect_uri is too long"
    # Browsers "repair" backslashes and strip whitespace differently from urlsplit; a URI
    # that two parsers could read differently is refused outright.
    if any(ch.isspace() or ch == "\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in uri):
        return "redirect_uri contains whitespace, control characters or backslashes"
    try:
        parts = urlsplit(uri)
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError:
        return "redirect_uri is not a valid URL"
    if parts.scheme not in ("http", "https"):
        return "redirect_uri must use https, or http to a loopback address"
    if not parts.hostname:
        return "redirect_uri has no host"
    if parts.username is not None or parts.password is not None:
        return "redirect_uri must not carry credentials"
    # RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
    if "#" in uri:
        return "redirect_uri must not carry a fragment"
    if parts.scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
        return "http redirect_uri is allowed only to 127.0.0.1, localhost or [::1]"
    return None

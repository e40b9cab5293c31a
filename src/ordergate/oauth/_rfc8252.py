"""RFC 8252, OAuth 2.0 for Native Apps: the redirect URIs a public client may use.

The rule both authorization servers apply before any redirect is made: http to a loopback
address on any port and path (§7.3, with ``localhost`` tolerated as the live server does), or
any https URL (§7.2). Everything else is refused, because redirecting to an unchecked URI would
hand the response to whoever owns it. The sandbox venue, like the live server, has no
registered redirect URI to compare with, so this rule is all it checks; the gateway checks it
on top of exact matching against the client's registration.
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

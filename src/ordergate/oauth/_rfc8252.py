"""RFC 8252, OAuth 2.0 for Native Apps: the redirect URIs a public client may use.

The rule every redirect passes before it is made (``redirect_uri_problem``): http to a
loopback address on any port and path (§7.3, with ``localhost`` tolerated as the live server
does), or any https URL (§7.2). Everything else is refused, because redirecting to an
unchecked URI would hand the response to whoever owns it.

A client that registered its redirect URIs (the gateway's) must then name one of them exactly,
character for character (no normalisation: a browser and this server must not read it
differently), with one freedom: on http loopback the port may differ (§7.3, a native client
picks a free port per sign-in). This is the open-redirect defence: the code can only go where
the client said it would when it registered. A client that registered none (the venue's one
shared client, as on the live server) is held to the rule alone (``redirect_problem``).
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_REDIRECT_URI_LENGTH",
    "NOT_REGISTERED",
    "redirect_matches",
    "redirect_problem",
    "redirect_uri_problem",
]

NOT_REGISTERED = "redirect_uri is not one this client registered"

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


def _without_port(uri: str) -> tuple[str, str, str, str] | None:
    """``uri`` without its port when it is http to a loopback host, else ``None``."""
    parts = urlsplit(uri)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS:
        return None
    # The host as written (no case folding), without ``:port``.
    host = parts.netloc.rsplit(":", 1)[0] if parts.port is not None else parts.netloc
    return parts.scheme, host, parts.path, parts.query


def redirect_matches(requested: str, registered: Iterable[str]) -> bool:
    """Whether ``requested`` may receive the response for a client registered with
    ``registered``: an exact match, or on http loopback a match but for the port."""
    if redirect_uri_problem(requested) is not None:
        return False
    portless = _without_port(requested)
    for uri in registered:
        if requested == uri:
            return True
        if portless is not None and portless == _without_port(uri):
            return True
    return False


def redirect_problem(requested: str, registered: tuple[str, ...] | None) -> str | None:
    """Why ``requested`` may not receive the response for a client that registered
    ``registered`` (``None``: it registered none), or ``None`` when it may."""
    if registered is None:
        return redirect_uri_problem(requested)
    return None if redirect_matches(requested, registered) else NOT_REGISTERED

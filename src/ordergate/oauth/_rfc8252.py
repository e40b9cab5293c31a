"""RFC 8252, OAuth 2.0 for Native Apps: the redirect URIs a public client may use.

The rule every redirect passes before it is made (``redirect_uri_problem``): http to a
loopback address on any port and path (§7.3, with ``localhost`` tolerated as the live server
does), any https URL (§7.2), or a private-use URI scheme (§7.1), the one a native app claims
on the device it runs on. Everything else is refused, because redirecting to an unchecked URI
would hand the response to whoever owns it.

A private-use scheme (``is_private_use``) is any scheme by RFC 3986's grammar but http and
https, spelled ``scheme:/path`` or ``scheme://authority/path``: §7.1's reverse-domain form with
a dot (``com.example.app:/oauth2redirect``) and, as RFC 8252 puts it, any scheme the client
owns, such as Cursor's ``cursor://anysphere.cursor-mcp/oauth/callback`` (Cursor registers that
one, with ``https://www.cursor.com/agents/mcp/oauth/callback`` and a loopback URI, in one
request). Refused among them: the schemes a browser or the system handles itself rather than
an app (``javascript:``, ``data:``, ``file:``, ``blob:``, ``about:``, ``mailto:`` … ,
``REFUSED_SCHEMES``), a scheme with nothing after the colon, a fragment or credentials. PKCE
(S256, always required) is what keeps a code that another app on the device intercepts
useless to it (§8.1), and the consent page says when the answer goes to an app.

A client that registered its redirect URIs (the gateway's) must then name one of them exactly,
character for character (no normalisation: a browser and this server must not read it
differently), with one freedom: on http loopback the port may differ (§7.3, a native client
picks a free port per sign-in). This is the open-redirect defence: the code can only go where
the client said it would when it registered. A client that registered none (the venue's one
shared client, as on the live server) is held to the rule alone (``redirect_problem``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_REDIRECT_URI_LENGTH",
    "NOT_REGISTERED",
    "REFUSED_SCHEMES",
    "is_private_use",
    "redirect_destination",
    "redirect_matches",
    "redirect_problem",
    "redirect_uri_problem",
]

NOT_REGISTERED = "redirect_uri is not one this client registered"

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
MAX_REDIRECT_URI_LENGTH = 2048

# Schemes a browser or the operating system handles itself: never an app's own redirect.
REFUSED_SCHEMES = frozenset(
    {
        "about", "blob", "chrome", "chrome-extension", "content", "data", "file",
        "filesystem", "ftp", "intent", "jar", "javascript", "livescript", "mailto",
        "moz-extension", "ms-settings", "resource", "sms", "tel", "urn", "vbscript",
        "view-source", "ws", "wss",
    }
)  # fmt: skip
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")


def _scheme(uri: str) -> str | None:
    """The scheme of ``uri``, lower-cased, when it has one by RFC 3986 §3.1."""
    name, colon, _ = uri.partition(":")
    return name.lower() if colon and _SCHEME.fullmatch(name) else None


def is_private_use(uri: str) -> bool:
    """Whether ``uri`` is a redirect to a native app's private-use scheme (§7.1)."""
    scheme = _scheme(uri)
    return scheme is not None and scheme not in ("http", "https")


def redirect_destination(uri: str) -> str:
    """Where ``uri`` sends the person, for a consent page: the host (and port) of an http(s)
    URI, or for a private-use one its scheme and authority (``cursor://anysphere.cursor-mcp``,
    ``com.example.app:``)."""
    scheme = _scheme(uri)
    if scheme is None or scheme in ("http", "https"):
        return urlsplit(uri).netloc
    rest = uri[len(scheme) + 1 :]
    if rest.startswith("//"):
        return f"{scheme}://{rest[2:].split('/', 1)[0].split('?', 1)[0]}"
    return f"{scheme}:"


def _private_use_problem(uri: str, scheme: str) -> str | None:
    if scheme in REFUSED_SCHEMES:
        return f"redirect_uri scheme {scheme}: is not an app's: use https, loopback or an app's own"
    rest = uri[len(scheme) + 1 :]
    if not rest.strip("/"):
        return "redirect_uri has nothing after its scheme"
    if "#" in uri:
        return "redirect_uri must not carry a fragment"
    if rest.startswith("//") and "@" in rest[2:].split("/", 1)[0]:
        return "redirect_uri must not carry credentials"
    return None


def redirect_uri_problem(uri: str) -> str | None:
    """Why ``uri`` may not receive an authorization response, or ``None`` when it may."""
    if len(uri) > MAX_REDIRECT_URI_LENGTH:
        return "redirect_uri is too long"
    # Browsers "repair" backslashes and strip whitespace differently from urlsplit; a URI
    # that two parsers could read differently is refused outright.
    if any(ch.isspace() or ch == "\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in uri):
        return "redirect_uri contains whitespace, control characters or backslashes"
    scheme = _scheme(uri)
    if scheme is None:
        return "redirect_uri must use https, http to a loopback address, or an app's own scheme"
    if scheme not in ("http", "https"):
        return _private_use_problem(uri, scheme)
    try:
        parts = urlsplit(uri)
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError:
        return "redirect_uri is not a valid URL"
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

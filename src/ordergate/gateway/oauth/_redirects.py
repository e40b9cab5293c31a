"""Redirect URIs: which a client may register, and whether a request's matches its registration.

Registration accepts what the shared RFC 8252 rule accepts (``redirect_uri_problem``):
``https://`` anywhere, or ``http://`` to a loopback host (``localhost``, ``127.0.0.1``,
``[::1]``), any port and path; never a fragment, credentials, whitespace or backslashes.

At authorization the requested URI must equal a registered one exactly, character for
character (no normalisation: a browser and this server must not read it differently), with
one freedom: on ``http`` loopback the port may differ (RFC 8252 §7.3, a native client picks
a free port per sign-in). This is the open-redirect defence: the code can only go where the
client said it would when it registered.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from ordergate.oauth import LOOPBACK_HOSTS, redirect_uri_problem

__all__ = ["MAX_REDIRECT_URIS", "redirect_matches", "redirect_uri_problem"]

MAX_REDIRECT_URIS = 10


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

"""Which server a token belongs to, and the rule that it is sent to that server only.

A token file records the server it was issued for: the MCP URL ``ordergate login`` signed in
to, in canonical form, and that URL's origin (RFC 6454: scheme, host and port). ``connect``
sends its tokens only when the URL it is asked to reach is that server, and ``TokenAuth``
checks every request's origin against it before the ``Authorization`` header is attached.
A token file without the record (written by an older ordergate) is sent nowhere: log in again.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from ordergate.client._errors import LoginRequired
from ordergate.core import ToolError

__all__ = [
    "UnboundTokens",
    "WrongServer",
    "canonical_url",
    "check_server",
    "origin_of",
    "shown_url",
    "unbound",
]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def canonical_url(url: str) -> str:
    """``url`` with a lower-case scheme and host, no default port, no user info, query or
    fragment, and no trailing slash: two spellings of one endpoint compare equal."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((scheme, _host_port(scheme, parts.hostname, parts.port), path, "", ""))


def origin_of(url: str) -> str:
    """The origin of ``url``: ``scheme://host[:port]``, the default port left out."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    return f"{scheme}://{_host_port(scheme, parts.hostname, parts.port)}"


def shown_url(url: str) -> str:
    """``url`` as an error may show it: no user info, query or fragment (which might hold a
    credential), the rest as given."""
    parts = urlsplit(url)
    netloc = _host_port(parts.scheme.lower(), parts.hostname, parts.port, keep_default=True)
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _host_port(
    scheme: str, host: str | None, port: int | None, *, keep_default: bool = False
) -> str:
    host = host or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 literal
    if port is None or (not keep_default and _DEFAULT_PORTS.get(scheme) == port):
        return host
    return f"{host}:{port}"


class WrongServer(LoginRequired):
    """The saved tokens were issued for another server than the one asked for."""

    def __init__(self, issued_for: str, asked: str) -> None:
        self.issued_for = issued_for
        self.asked = asked
        ToolError.__init__(
            self,
            f"the saved Robinhood token was issued for {issued_for}, not {asked}, so it is not "
            f"sent there; log in there first: ordergate login --url {asked}",
        )


class UnboundTokens(LoginRequired):
    """The token file does not say which server it was issued for (an older ordergate wrote
    it), so its tokens are sent nowhere."""

    def __init__(self, token_file: Path) -> None:
        self.token_file = token_file
        ToolError.__init__(
            self,
            f"the token file {token_file} does not say which server it was issued for (an "
            "older ordergate wrote it), so it is sent nowhere; log in again: ordergate login",
        )


def unbound(token_file: Path) -> LoginRequired:
    """The refusal for a token file that does not say which server it was issued for."""
    return UnboundTokens(token_file)


def check_server(issued_for: str | None, url: str, *, token_file: Path | None = None) -> None:
    """Refuse, before anything is sent, unless ``url`` is the server the tokens were issued
    for. ``issued_for`` ``None``: refused when the tokens came from ``token_file``."""
    if issued_for is None:
        if token_file is not None:
            raise unbound(token_file)
        return
    if canonical_url(url) != issued_for:
        raise WrongServer(issued_for, shown_url(url))

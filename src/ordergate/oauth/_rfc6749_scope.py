"""RFC 6749, The OAuth 2.0 Authorization Framework, §3.3 Access Token Scope: the one rule.

The ``scope`` parameter's grammar:

    scope       = scope-token *( SP scope-token )
    scope-token = 1*( %x21 / %x23-5B / %x5D-7E )

A value that does not fit the grammar (an empty token from a doubled, leading or trailing
space, a tab or a newline, a quote, a backslash, anything outside printable ASCII) is
malformed, and refused with ``invalid_scope`` ("invalid, unknown, or malformed"). Tokens are
a set: their order does not matter and a repeated one counts once.

The rule (``granted_scope``), which the authorization endpoint applies to a request and the
token endpoint to a refresh: an absent scope is the whole offer (§3.3's "pre-defined default
value"); a scope within the offer is granted as asked; a scope that names anything else is
refused with ``invalid_scope``. A refresh is checked against the offer too, which is what §6
asks ("MUST NOT include any scope not originally granted") because every grant these servers
make holds the whole offer (each offers one scope).

A server may instead *narrow* an authorization request to what it offers (``narrow=True``:
the gateway): §3.3 lets it "fully or partially ignore the scope requested by the client",
saying so in the token response's ``scope``, which is always the granted one. Clients ask for
more than a server offers as a matter of course (``offline_access`` for a refresh token, the
scopes of another server they were set up for), and refusing them ends a sign-in that the
server could have granted. Narrowing still refuses a malformed scope, and one that names
nothing the server offers (granting nothing would be a token for nothing). A refresh is never
narrowed: §6 forbids it to ask for more than was granted, and §5.2 answers that
``invalid_scope``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["ScopeError", "granted_scope", "parse_scope"]

_TOKEN = r"[\x21\x23-\x5B\x5D-\x7E]+"
_SCOPE = re.compile(rf"{_TOKEN}(?: {_TOKEN})*")


class ScopeError(ValueError):
    """A requested scope that is malformed or names what is not offered."""


def parse_scope(value: str) -> frozenset[str]:
    """The scope tokens of ``value``. Raises ``ScopeError`` when it does not fit §3.3."""
    if _SCOPE.fullmatch(value) is None:
        raise ScopeError("scope is malformed: space-separated printable tokens (RFC 6749 §3.3)")
    return frozenset(value.split(" "))


def granted_scope(requested: str | None, offered: Sequence[str], *, narrow: bool = False) -> str:
    """The scope granted for ``requested`` (a request's ``scope``; ``None`` when it sent
    none), as space-separated tokens in ``offered``'s order; with ``narrow``, what it names
    beyond the offer is left out.

    Raises ``ScopeError`` when ``requested`` is malformed, names a scope not offered
    (without ``narrow``) or, with ``narrow``, names none that is.
    """
    if requested is None:
        return " ".join(offered)
    asked = parse_scope(requested)
    if not narrow and not asked <= set(offered):
        raise ScopeError(f"scope may name only {' '.join(offered)}")
    granted = " ".join(scope for scope in offered if scope in asked)
    if not granted:
        raise ScopeError(f"scope names nothing offered here: ask for {' '.join(offered)}")
    return granted

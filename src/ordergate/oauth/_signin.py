"""The upstream sign-in hook: where an approval goes before its code, when there is one.

A server whose connections each hold a session at another authorization server (the
gateway in sealed custody, ``ordergate.gateway.custody``) is given a ``SignIn``. While it says
it is ``unavailable``, the consent page is not shown: the reason is, with status 503. Once the
person approves (the nonce spent, the profile read, the consent hook satisfied), ``begin`` is
awaited instead of issuing a code: it sends the browser on to sign in upstream, and its own
route, ``callback_path``, answers the upstream and issues the code itself (``issue_code`` on
the same store) once that sign-in is done.
"""

from __future__ import annotations

from typing import Protocol

from starlette.requests import Request
from starlette.responses import Response

from ordergate.oauth._storage import Authorization

__all__ = ["SignIn"]


class SignIn(Protocol):
    @property
    def unavailable(self) -> str | None:
        """Why nobody can be connected now (shown instead of the consent page), or ``None``."""
        ...

    @property
    def callback_path(self) -> str:
        """Where the upstream's answer to a sign-in comes back (``GET``)."""
        ...

    async def begin(self, pending_id: str, authorization: Authorization) -> Response:
        """The answer to an approval: the browser sent on to sign in at the upstream."""
        ...

    async def callback(self, request: Request) -> Response:
        """The upstream's answer to that sign-in."""
        ...

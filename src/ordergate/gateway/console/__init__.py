"""The owner's console at ``/console``: a browser page for the owner only.

Sign-in with the owner code (through the ``OwnerAuthority``: every attempt counts toward its
lockout) or a passkey (WebAuthn, registered once with the owner code); short sessions in an
HttpOnly, SameSite=Strict cookie holding a random id whose SHA-256 alone is stored
(``_sessions``); a CSRF token on every form, the gateway's own origin on every post, and no
bearer token ever read (``_web``). Pages are server-rendered (Starlette + Jinja2, htmx for
the live list); each act goes through the ``OwnerDesk``, the command line's one path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from sqlalchemy import Engine
from starlette.routing import BaseRoute

from ordergate.core import Clock
from ordergate.execution import Guard
from ordergate.gateway.console._budget import account_reader, budget_reader
from ordergate.gateway.console._passkeys import Passkeys, RelyingParty
from ordergate.gateway.console._routes import console_routes
from ordergate.gateway.console._sessions import IDLE, MAX_AGE, ConsoleSessions
from ordergate.gateway.console._web import COOKIE, PREFIX, Web, origin_of
from ordergate.gateway.desk import OwnerDesk

__all__ = ["COOKIE", "IDLE", "MAX_AGE", "PREFIX", "console", "console_url"]


def console(
    desk: OwnerDesk,
    engine: Engine,
    *,
    public_url: str,
    clock: Clock,
    guard: Callable[[], Awaitable[Guard]] | None = None,
) -> list[BaseRoute]:
    """The console's routes over the gateway's database; ``clock`` is security time;
    ``guard`` the one guard the gateway trades through (``None`` in sealed custody)."""
    party = RelyingParty(rp_id=urlsplit(public_url).hostname or "", origin=origin_of(public_url))
    web = Web(ConsoleSessions(engine, clock=clock), public_url)
    budget = budget_reader(guard, clock=clock)
    passkeys = Passkeys(engine, party, clock=clock)
    return console_routes(desk, web, passkeys, budget, account_reader(guard))


def console_url(public_url: str) -> str:
    """Where the gateway at ``public_url`` serves the owner's console."""
    return f"{public_url.rstrip('/')}{PREFIX}"

"""The owner's console at ``/console``: a browser page for the owner only.

Sign-in with the owner code (through the ``OwnerAuthority``: every attempt counts toward its
lockout) or a passkey (WebAuthn at ``localhost`` or a real domain, never an IP address;
registered with the owner code, in use only once the owner's delay has passed, revocable at
once); the acts that wait for the owner's delay, each with its time left and a cancel
button (``/console/delayed``); short sessions in an
HttpOnly, SameSite=Strict cookie holding a random id whose SHA-256 alone is stored
(``_sessions``); a CSRF token on every form, the gateway's own origin on every post, and no
bearer token ever read (``_web``). Pages are server-rendered (Starlette + Jinja2, htmx for
the live list); each act goes through the ``OwnerDesk``, the command line's one path.

On a hosted rail each person signs in with the passkey they registered for their connection
on the consent flow and sees only that connection (``_person_routes``); the operator's pages
refuse their session, and theirs refuse the operator's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy import Engine
from starlette.routing import BaseRoute

from ordergate.core import Clock
from ordergate.execution import Guard
from ordergate.gateway.console._budget import AccountRead, account_reader, budget_reader
from ordergate.gateway.console._passkeys import Passkeys, RelyingParty
from ordergate.gateway.console._routes import console_routes
from ordergate.gateway.console._sessions import IDLE, MAX_AGE, ConsoleSessions
from ordergate.gateway.console._web import COOKIE, PREFIX, Web, origin_of
from ordergate.gateway.custody import PersonPasskeys
from ordergate.gateway.desk import OwnerDesk
from ordergate.owner import DelayedAct, OwnerAct
from ordergate.store import blocking

__all__ = ["COOKIE", "IDLE", "MAX_AGE", "PREFIX", "console", "console_url"]


def console(
    desk: OwnerDesk,
    engine: Engine,
    *,
    public_url: str,
    clock: Clock,
    guard: Callable[[], Awaitable[Guard]] | None = None,
    persons: PersonPasskeys | None = None,
    guard_of: Callable[[str], Awaitable[Guard]] | None = None,
) -> list[BaseRoute]:
    """The console's routes over the gateway's database; ``clock`` is security time;
    ``guard`` the one guard the gateway trades through (``None`` in sealed custody);
    ``persons``: a hosted rail's people's passkeys (each person's own console), ``guard_of``
    each connection's own guard there (its person's positions)."""
    party = RelyingParty.for_url(public_url)
    also = (party.origin,) if party is not None and party.origin != origin_of(public_url) else ()
    web = Web(ConsoleSessions(engine, clock=clock), public_url, also_origins=also)
    budget = budget_reader(guard)
    passkeys = Passkeys(engine, party, clock=clock)

    async def keep(act: DelayedAct) -> str | None:
        await blocking(passkeys.keep, act.payload)
        return "the passkey now signs the owner in"

    # A registered passkey is kept only once the owner's delay has passed.
    desk.delayed.on_due(OwnerAct.PASSKEY_REGISTER, keep)

    def account_of(connection_id: str) -> AccountRead:
        assert guard_of is not None
        return account_reader(lambda: guard_of(connection_id))

    return console_routes(
        desk,
        web,
        passkeys,
        budget,
        account_reader(guard),
        persons,
        account_of if guard_of is not None else None,
    )


def console_url(public_url: str) -> str:
    """Where the gateway at ``public_url`` serves the owner's console."""
    return f"{public_url.rstrip('/')}{PREFIX}"

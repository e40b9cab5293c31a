"""A hosted rail's push, assembled: its VAPID key, the persons' subscriptions, the sender, the
guard's notifier and the person's push routes — or nothing, when the operator named no contact
(``--push-contact``) or the rail cannot seal (no key provider, no person codes)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import Engine
from starlette.routing import BaseRoute

from ordergate.core import Clock
from ordergate.gateway._seal import SealError
from ordergate.gateway.custody._person import PersonCodes
from ordergate.gateway.keys import KeyProvider, KeyProviderError
from ordergate.gateway.push._notifier import PushNotifier
from ordergate.gateway.push._routes import push_routes
from ordergate.gateway.push._send import PushSender
from ordergate.gateway.push._subscriptions import PushSubscriptions
from ordergate.gateway.push._vapid import rail_vapid_key
from ordergate.ledger import Ledger
from ordergate.store import blocking

__all__ = ["rail_push"]

logger = logging.getLogger(__name__)


@asynccontextmanager
async def rail_push(
    *,
    ledger: Ledger,
    keys: KeyProvider | None,
    persons: PersonCodes | None,
    contact: str | None,
    console: str,
    clock: Clock,
    allow_private: bool = False,
) -> AsyncIterator[tuple[PushNotifier | None, list[BaseRoute]]]:
    """The notifier the guards tell and the routes to serve, for the block."""
    if contact is None or keys is None or persons is None:
        yield None, []
        return
    engine: Engine = ledger.engine
    try:
        vapid = await blocking(rail_vapid_key, engine, keys, now=clock.now())
    except (KeyProviderError, SealError) as error:
        # Fail soft: the rail runs, held orders wait as ever, only nobody's phone is told.
        logger.warning("push is off: the rail's VAPID key does not open (%s)", type(error).__name__)
        yield None, []
        return
    subscriptions = PushSubscriptions(engine, keys=keys, clock=clock)
    sender = PushSender(vapid=vapid, subject=contact, clock=clock, allow_private=allow_private)
    async with PushNotifier.running(
        engine=engine, ledger=ledger, subscriptions=subscriptions, sender=sender, console=console
    ) as notifier:
        yield (
            notifier,
            push_routes(
                persons=persons,
                subscriptions=subscriptions,
                vapid=vapid,
                engine=engine,
                allow_private=allow_private,
            ),
        )

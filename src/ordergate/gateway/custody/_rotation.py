"""Rotating the key-encryption key: every data key re-wrapped, no session opened.

``rotate_keys`` has the key provider make a new KEK current (a PKCS#11 token makes one; the
master secret's KEK is new when the secret is, the old one kept as
``ORDERGATE_MASTER_SECRET_PREVIOUS``), then moves each connection's wrapped data key onto it
one row at a time, under that row's lock, inside the provider (``rewrap``: on a token the data
key is unwrapped there as a sensitive object and wrapped again; no session is ever decrypted).
It sweeps again until no row names an old KEK (a rail that wrapped a new connection's key a
moment before the new KEK existed), and only then does the provider retire the old ones.
Interrupted anywhere, every row still names a KEK the provider holds, so every connection
still opens; run it again to finish. A row whose data key does not unwrap (its KEK is not this
provider's) is left as it was and counted; its KEK is never retired by this run.

The rail's VAPID key (``ordergate.gateway.push``), sealed under a data key of its own, is
re-wrapped the same way, and its KEK counts as in use until it is.

A connection ended since the last rotation (its data key erased, the KEK it was under still
named on its row) is shredded past by it: once that KEK is retired its row forgets it
(``shredded_past``; ``_shredding`` runs a rotation for that after each erasure).

Connections still sealed the old way (``v1.``, under the master secret's own key) are moved to
data keys of their own first, as their next use would move them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine, select, update

from ordergate.client import LoginRequired
from ordergate.gateway._schema import connections
from ordergate.gateway._seal import PREFIX as LEGACY_PREFIX
from ordergate.gateway._seal import Sealer
from ordergate.gateway.custody._vault import move_legacy
from ordergate.gateway.keys import KeyProvider, KeyProviderError, rewrapped
from ordergate.gateway.oauth._records import ConnectionState
from ordergate.gateway.push._vapid import rewrap_vapid_key, vapid_kek_of
from ordergate.store import purge_freed, write_transaction

__all__ = ["Progress", "Rotation", "rotate_keys", "shredded_past"]

Progress = Callable[[int, int], None]
"""Called after each row with (rows done, rows to do) in the sweep."""
_SWEEPS = 3


@dataclass(frozen=True, slots=True)
class Rotation:
    """What a rotation did: the KEK every data key is under now, how many were re-wrapped,
    how many ``v1.`` sessions moved to data keys of their own, the KEKs retired, and the
    connections whose data key did not unwrap (left as they were)."""

    key_id: str
    rewrapped: int = 0
    moved: int = 0
    retired: list[str] = field(default_factory=list)
    unopened: list[str] = field(default_factory=list)


def rotate_keys(
    engine: Engine,
    keys: KeyProvider,
    *,
    sealers: Sequence[Sealer] = (),
    progress: Progress | None = None,
) -> Rotation:
    """Rotate ``keys``' KEK and re-wrap every connection's data key under it (with the master
    secrets' ``sealers``, the ``v1.`` sessions are first moved to data keys of their own)."""
    table = connections.c
    unopened: list[str] = []
    moved = 0
    if sealers:
        with engine.connect() as db:
            legacy = (
                db.execute(
                    select(table.id).where(
                        table.state == ConnectionState.LIVE,
                        table.upstream_sealed.startswith(LEGACY_PREFIX, autoescape=True),
                    )
                )
                .scalars()
                .all()
            )
        for connection_id in legacy:
            try:
                moved += move_legacy(engine, keys, sealers, connection_id)
            except LoginRequired:
                unopened.append(connection_id)
    key_id = keys.rotate()
    done = 0
    left: set[str] = set()
    # Swept again until nothing is left under an old KEK: a connection made meanwhile by a
    # rail that wrapped its key a moment before the new KEK existed is moved too, before any
    # old KEK is retired.
    for _ in range(_SWEEPS):
        with engine.connect() as db:
            todo = [
                connection_id
                for connection_id in db.execute(
                    select(table.id)
                    .where(table.data_key_wrapped.is_not(None), table.kek_id != key_id)
                    .order_by(table.id)
                ).scalars()
                if connection_id not in left
            ]
        if not todo:
            break
        for number, connection_id in enumerate(todo, 1):
            try:
                done += _rewrap_one(engine, keys, connection_id, key_id)
            except KeyProviderError:
                unopened.append(connection_id)
                left.add(connection_id)
            if progress is not None:
                progress(number, len(todo))
    with engine.connect() as db:
        in_use = set(
            db.execute(select(table.kek_id).where(table.data_key_wrapped.is_not(None)).distinct())
            .scalars()
            .all()
        )
    try:
        vapid_kek = rewrap_vapid_key(engine, keys, key_id)
    except KeyProviderError:
        vapid_kek = vapid_kek_of(engine)  # left as it was: its KEK is not retired
    if vapid_kek is not None:
        in_use.add(vapid_kek)
    retired = keys.retire(in_use)
    # What the provider still holds; the master secret's KEK is never destroyed, so nothing
    # is owed to a backup there (``_shredding``).
    shredded_past(engine, held={key_id, *in_use} if keys.destroys_keks else set())
    purge_freed(engine)  # the old wraps, gone from the rows, gone from the file too
    return Rotation(key_id=key_id, rewrapped=done, moved=moved, retired=retired, unopened=unopened)


def shredded_past(engine: Engine, *, held: set[str]) -> None:
    """Forget, on each ended connection (its data key erased), the KEK its data key was
    under once that KEK is not ``held`` any more: no backup's copy of its data key opens."""
    table = connections.c
    with write_transaction(engine) as tx:
        tx.execute(
            update(connections)
            .where(
                table.data_key_wrapped.is_(None),
                table.kek_id.is_not(None),
                table.kek_id.not_in(held),
            )
            .values(kek_id=None)
        )


def _rewrap_one(engine: Engine, keys: KeyProvider, connection_id: str, key_id: str) -> bool:
    table = connections.c
    with write_transaction(engine) as tx:
        row = tx.execute(
            select(table.data_key_wrapped, table.kek_id)
            .where(table.id == connection_id)
            .with_for_update()
        ).first()
        if row is None or row.data_key_wrapped is None or row.kek_id in (None, key_id):
            return False  # erased, or moved meanwhile
        new_id, blob = rewrapped(keys, data_key_wrapped=row.data_key_wrapped, kek_id=row.kek_id)
        tx.execute(
            update(connections)
            .where(table.id == connection_id)
            .values(data_key_wrapped=blob, kek_id=new_id)
        )
    return True

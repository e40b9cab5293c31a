"""Crypto-shredding that a backup cannot undo: after a connection is erased, the KEK its data
key was under is rotated past and destroyed.

Erasing a connection erases its sealed session and its wrapped data key from the ledger
(``oauth._connections``), so a copy of the ledger taken afterwards holds nothing of it. A
backup taken before still holds the wrapped data key. On a key provider that destroys KEKs (a
PKCS#11 token) the rail therefore rotates after each erasure (``rotate_keys``: a new KEK, every
live data key re-wrapped onto it inside the token, the old KEK destroyed): from then on the
erased connection's data key, in any backup, is wrapped by a KEK that exists nowhere, and a
restore cannot reopen its session. (Nor, in a backup taken before the erasure, anyone else's:
after such a restore each person signs in again.)

Until that rotation has run, the erased row keeps the id of its KEK (a shredding still owed).
``Shredder`` runs it after every erasure the gateway's store makes and once when the rail
starts, so an erasure made while no rail ran (the command line on the ledger) or a rotation
that failed is finished then; its failure is logged and never undoes the erasure. With the
master secret's KEK nothing can be destroyed: the marks are dropped, and a backup taken before
an erasure still opens that session with the secret (the operator's risk, README).
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine, select

from ordergate.gateway._schema import connections
from ordergate.gateway.custody._rotation import Rotation, rotate_keys, shredded_past
from ordergate.gateway.keys import KeyProvider, KeyProviderError

__all__ = ["Shredder", "shred_erased"]

_log = logging.getLogger(__name__)


def owed(engine: Engine) -> set[str]:
    """The KEKs an erased connection's data key was under and that are not yet destroyed."""
    table = connections.c
    with engine.connect() as db:
        return set(
            db.execute(
                select(table.kek_id)
                .where(table.data_key_wrapped.is_(None), table.kek_id.is_not(None))
                .distinct()
            ).scalars()
        )


def shred_erased(engine: Engine, keys: KeyProvider) -> Rotation | None:
    """Rotate past every KEK an erased connection's data key was under, where ``keys`` can
    destroy one; the rotation, or ``None`` when none was owed (or none can be destroyed)."""
    if not owed(engine):
        return None
    if not keys.destroys_keks:
        shredded_past(engine, held=set())
        return None
    return rotate_keys(engine, keys)


class Shredder:
    """``shred_erased`` on ``engine`` with ``keys``, one at a time in this process; called
    after each erasure (``GatewayStore.on_erased``). It never raises: an erasure stands
    whatever becomes of the rotation, and what is still owed is done the next time."""

    def __init__(self, engine: Engine, keys: KeyProvider) -> None:
        self._engine = engine
        self._keys = keys
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            try:
                shred_erased(self._engine, self._keys)
            except KeyProviderError as error:
                _log.warning("shredding an erased connection's KEK failed: %s", error)
            except Exception:  # the erasure is done; the next erasure or start retries
                _log.exception("shredding an erased connection's KEK failed")

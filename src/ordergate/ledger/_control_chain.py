"""The controls' chain: every write of a control, hash-linked like the filings' events.

``controls`` holds the current value of each control (the pause flag, the applied policy,
the high-water mark, the session-start equity), overwritten in place, so an edit of a row
left no trace. Each write now also appends ``(seq, key, value, updated_at)`` to
``control_events``, linked to the one before it (``chain_hash``), in the write's own
transaction and under the ``controls`` lock (Postgres; SQLite's write lock serialises it):
one indexed read of the chain's last link and one insert, whatever the history.

``against_controls`` (``verify``) walks the chain (after an events checkpoint of it,
``controls_since``) and checks that every row of ``controls`` is the latest value its chain
says, and that no key the chain names is missing: a rewritten applied policy, a deleted pause
or a lowered mark is reported on the chain name ``controls``. A key is chained, not keyed by
a secret: the same OS user can rebuild the chain, as they can the filings'; the checkpoint
kept beside the home (``ordergate serve``) or exported (``audit head``) is what pins it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, desc, func, insert, select

from ordergate.ledger._canonical import GENESIS, SEPARATOR, chain_hash
from ordergate.ledger._models import ChainHead, VerifyResult
from ordergate.ledger._schema import control_events, controls
from ordergate.ledger._walk import bad
from ordergate.store import Statement, take_locks

__all__ = ["CONTROL_TAG", "against_controls", "append_control", "control_body", "controls_head"]

CONTROL_TAG = "ordergate.control/1"
_CHAIN = "controls"
_LAST = Statement(
    select(control_events.c.seq, control_events.c.hash)
    .order_by(desc(control_events.c.seq))
    .limit(1)
)
_INSERT = Statement(insert(control_events))
_LATEST = (
    select(control_events)
    .where(control_events.c.key == bindparam("key"))
    .order_by(desc(control_events.c.seq))
    .limit(1)
)
KEYS = frozenset(
    {"pause", "high_water_mark", "session_start_equity", "applied_policy", "breaker_trip"}
)
"""The controls the ledger writes (``_controls``; and one ``breaker_trip:<account>`` per
account, found on the chain): each is looked for even when its row is gone."""
_BATCH = 1000


def control_body(seq: int, key: str, value: str, updated_at: str) -> bytes:
    return SEPARATOR.join((CONTROL_TAG, str(seq), key, value, updated_at)).encode()


def controls_head(connection: Connection) -> ChainHead:
    """The controls chain's last link (``(0, GENESIS)`` before any write)."""
    row = _LAST.first(connection)
    return ChainHead(0, GENESIS) if row is None else ChainHead(int(row.seq), row.hash)


def append_control(connection: Connection, key: str, value: str, updated_at: str) -> None:
    """Chain a control's new value, in the caller's write transaction."""
    take_locks(connection, "controls")
    head = controls_head(connection)
    seq = head.seq + 1
    digest = chain_hash(head.hash, control_body(seq, key, value, updated_at))
    _INSERT.run(
        connection,
        {"seq": seq, "key": key, "value": value, "updated_at": updated_at,
         "prev_hash": head.hash, "hash": digest},
    )  # fmt: skip


def against_controls(connection: Connection, since: ChainHead | None) -> VerifyResult:
    """The controls chain walked (after ``since``), and every control row checked against
    the latest value the chain holds for its key."""
    prev, after = GENESIS, 0
    if since is not None and since.seq > 0:
        row = connection.execute(
            select(control_events).where(control_events.c.seq == since.seq)
        ).first()
        if row is None or _digest(row) != row.hash or row.hash != since.hash:
            reason = f"controls {since.seq} is not the checkpoint's (cut, edited or rewritten)"
            return bad(_CHAIN, since.seq, None, reason)
        prev, after = row.hash, since.seq
    checked = 0
    while True:
        rows = connection.execute(
            select(control_events)
            .where(control_events.c.seq > after)
            .order_by(control_events.c.seq)
            .limit(_BATCH)
        ).all()
        for row in rows:
            if row.seq != after + 1:
                return bad(_CHAIN, after + 1, None, f"controls {after + 1} is missing (deleted)")
            if row.prev_hash != prev or _digest(row) != row.hash:
                return bad(_CHAIN, row.seq, None, f"controls {row.seq} does not match its hash "
                           "(edited)")  # fmt: skip
            prev, after = row.hash, row.seq
            checked += 1
        if len(rows) < _BATCH:
            break
    return _current(connection, checked)


def _current(connection: Connection, checked: int) -> VerifyResult:
    """Each control row, and each key the ledger writes, against the latest value its chain
    holds (``ix_control_events_key``: key, seq, read backwards; the controls table is a
    handful of rows)."""
    rows = {row.key: row for row in connection.execute(select(controls))}
    for key in sorted(set(rows) | KEYS | _chained_keys(connection)):
        chained = connection.execute(_LATEST, {"key": key}).first()
        held = rows.get(key)
        if chained is None:
            if held is None:
                continue  # never written
            reason = f"controls.{key} is not on the controls chain (written by hand)"
            return bad(_CHAIN, 0, None, reason)
        if held is None:
            return bad(_CHAIN, chained.seq, None, f"controls.{key} is missing (deleted)")
        if (held.value, held.updated_at) != (chained.value, chained.updated_at):
            reason = f"controls.{key} differs from its value on the controls chain (edited)"
            return bad(_CHAIN, chained.seq, None, reason)
    return VerifyResult(ok=True, checked=checked)


_NEXT_KEY = select(func.min(control_events.c.key)).where(control_events.c.key > bindparam("key"))


def _chained_keys(connection: Connection) -> set[str]:
    """Every key the chain names, so an account's breaker trip (``breaker_trip:<account>``)
    is looked for as the fixed keys are: one seek of ``ix_control_events_key`` a key (a
    handful), never the chain's rows."""
    keys: set[str] = set()
    key = connection.execute(_NEXT_KEY, {"key": ""}).scalar()
    while key is not None:
        keys.add(key)
        key = connection.execute(_NEXT_KEY, {"key": key}).scalar()
    return keys


def _digest(row: Any) -> str:
    return chain_hash(row.prev_hash, control_body(row.seq, row.key, row.value, row.updated_at))

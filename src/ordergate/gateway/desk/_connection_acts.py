"""Acts on one connection: the operator's pause of it and the resume only its owner makes.

On a hosted rail every connection is a person's own. Pausing one only tightens, so anyone at
the owner's desk (the operator) may do it without anyone's consent: every new order of that
connection — its own and its bound callers' — is refused ``paused`` by the guard from then on
(``ordergate.ledger``'s connection pause, read in each decision's one statement), and a held
one is refused at its review after approval. Resuming loosens: it is a prepared act
(``resume`` with ``connection_id``) authorized by the owner of the connection — on a sealed
connection the person's own code (``custody._person``), never the operator's; on an owner
custody connection the owner code, as the rail-wide resume.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Engine, select

from ordergate.gateway._owner import connection_digest
from ordergate.gateway._schema import connections
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._plans import Plan, text_param
from ordergate.gateway.oauth._records import ConnectionKind, ConnectionState
from ordergate.ledger import Ledger, PauseState
from ordergate.owner import OwnerAct

__all__ = [
    "CONNECTION_PARAM",
    "REVOKE_AT_UPSTREAM",
    "connection_kind",
    "connection_of",
    "connection_resume_plan",
    "disconnect_plan",
    "disconnected",
    "pause_connection",
    "resume_connection",
]

CONNECTION_PARAM = "connection_id"
REVOKE_AT_UPSTREAM = "https://robinhood.com/account/settings/security"
"""Where the account holder revokes the rail's grant at Robinhood itself: the rail erasing
its copy does not end the grant upstream."""


def connection_kind(engine: Engine, connection_id: str) -> ConnectionKind:
    """The kind of the live connection ``connection_id``; ``DeskError`` 404 for none."""
    query = select(connections.c.kind).where(
        connections.c.id == connection_id, connections.c.state == ConnectionState.LIVE
    )
    with engine.connect() as db:
        kind = db.execute(query).scalar()
    if kind is None:
        raise DeskError(404, "unknown_connection", "No live connection has that connection_id.")
    return ConnectionKind(kind)


def pause_connection(
    engine: Engine, ledger: Ledger, connection_id: str, reason: str, *, by: str
) -> dict[str, Any]:
    """Pause the live connection ``connection_id`` (blocking); ``changed``: whether it was
    running until now."""
    connection_kind(engine, connection_id)
    digest = connection_digest(connection_id)
    current = ledger.controls.connection_pause(digest)
    if current.paused:
        return _pause_json(connection_id, current, changed=False)
    paused = ledger.controls.pause_connection(digest, reason, by=by)
    return _pause_json(connection_id, paused, changed=True)


def connection_resume_plan(connection_id: str, pause: PauseState) -> Plan:
    params = {CONNECTION_PARAM: connection_id}
    detail = {"connection": connection_digest(connection_id)}
    if not pause.paused:
        summary = ("resume this connection: it is not paused",)
        return Plan(OwnerAct.RESUME, params, summary, {}, needs_code=False, detail=detail)
    since = pause.since.isoformat() if pause.since else "unknown"
    return Plan(
        act=OwnerAct.RESUME,
        params=params,
        summary=(
            "resume this connection: its new orders are accepted again",
            f"paused since {since}",
        ),
        binds={"since": since, "reason": pause.reason},
        needs_code=True,
        detail=detail,
    )


def disconnect_plan(connection_id: str) -> Plan:
    return Plan(
        act=OwnerAct.DISCONNECT,
        params={CONNECTION_PARAM: connection_id},
        summary=(
            "disconnect this connection: its tokens stop working and its session, code and "
            "data key are erased",
            f"then revoke the grant at Robinhood too: {REVOKE_AT_UPSTREAM}",
        ),
        binds={},
        needs_code=True,
        detail={"connection": connection_digest(connection_id)},
    )


def disconnected(connection_id: str, erased: bool) -> dict[str, Any]:
    """The answer to a person's disconnect."""
    return {
        CONNECTION_PARAM: connection_id,
        "disconnected": erased,
        "revoke_at_upstream": REVOKE_AT_UPSTREAM,
        "message": "This connection is erased: its tokens no longer work and its session "
        "cannot be opened again. Revoke the grant at Robinhood as well to end it there.",
    }


def resume_connection(ledger: Ledger, connection_id: str, *, by: str) -> dict[str, Any]:
    """Lift the pause of ``connection_id`` (blocking), journalled under ``by``."""
    digest = connection_digest(connection_id)
    current = ledger.controls.connection_pause(digest)
    if not current.paused:
        return {CONNECTION_PARAM: connection_id, "paused": False, "changed": False}
    ledger.controls.resume_connection(digest, by=by)
    was = _pause_json(connection_id, current, changed=False)
    return {CONNECTION_PARAM: connection_id, "paused": False, "changed": True, "was": was}


def connection_of(params: Mapping[str, Any]) -> str | None:
    """The connection an act names (``None``: the whole rail); ``DeskError`` 400 when the
    parameter is there but not a connection id."""
    if CONNECTION_PARAM not in params:
        return None
    return text_param(params, CONNECTION_PARAM)


def _pause_json(connection_id: str, state: PauseState, *, changed: bool) -> dict[str, Any]:
    return {
        CONNECTION_PARAM: connection_id,
        "paused": state.paused,
        "changed": changed,
        "reason": state.reason,
        "since": state.since.isoformat() if state.since else None,
    }

"""Approval mode: on a hosted rail each order of a connection is held for the person who owns it.

The flag is ``connections.approval_mode`` (gateway migration 0038), true by the column's
default: every connection starts in approval mode, whatever the rail's policy says of
``approval``. ``SealedBackend`` reads it (``holds``, one primary-key read) each time it hands
out a connection's guard and, while it is on, hands out that guard under the policy narrowed to
``approval = "always"`` (``held_policy``): every order of the connection — equity, crypto,
option — is filed, checked and held, and carried on only once the person approves it with their
own code. A change is honoured from the next call on, on every replica; a connection the flag
cannot be read for is held (fail closed).

Turning approval mode off loosens, so it is the person's own act: their code
(``PersonCodes.authorize``, act ``approval_mode_off``, journalled ``person_act``) — the
operator's code is no code of theirs and is refused like any wrong one. The person turns it
on again the same way (``approval_mode_on``). Turning it on only tightens, so the operator
does it too, with no one's consent (``set_by_operator``, journalled ``approval_mode``); the
operator turning it off is refused and journalled ``person_act`` (``approval_mode_off``,
``person_act_operator_refused``). Owner custody never reads the flag.
"""

from __future__ import annotations

import dataclasses

from sqlalchemy import Engine, select, update

from ordergate.gateway._owner import connection_digest
from ordergate.gateway._schema import connections
from ordergate.gateway.custody._person import (
    NO_PERSON_CODES,
    OPERATOR_CREDENTIAL,
    PersonCodes,
    PersonRefused,
    journal_person_refusal,
)
from ordergate.ledger import Ledger
from ordergate.policy import Approval, ApprovalKind, PolicyConfig
from ordergate.store import write_transaction

__all__ = [
    "APPROVAL_MODE_OFF",
    "APPROVAL_MODE_ON",
    "ApprovalModeRefused",
    "ApprovalModes",
    "held_policy",
]

APPROVAL_MODE_OFF = "approval_mode_off"
APPROVAL_MODE_ON = "approval_mode_on"
_ALWAYS = Approval(ApprovalKind.ALWAYS)
_OPERATOR_IDENTITY = "unverified"  # the desk's identity for acts that only tighten


def held_policy(policy: PolicyConfig) -> PolicyConfig:
    """``policy`` with every order held for approval (``approval = "always"``)."""
    if policy.approval == _ALWAYS:
        return policy
    return dataclasses.replace(policy, approval=_ALWAYS)


class ApprovalModeRefused(Exception):
    """The operator asked to turn a connection's approval mode off: only its person does."""

    code = "approval_mode_off_person_only"

    def __init__(self) -> None:
        super().__init__(
            "Only the person who owns the connection turns its approval mode off, with their "
            "own code; the operator turns it on."
        )


class ApprovalModes:
    """Reads and sets each connection's approval mode (blocking calls)."""

    def __init__(self, engine: Engine, *, persons: PersonCodes | None) -> None:
        self._engine = engine
        self._persons = persons

    def holds(self, connection_id: str) -> bool:
        """Whether every order of ``connection_id`` is held for its person: its flag, or
        ``True`` when there is no row to read (fail closed)."""
        with self._engine.connect() as db:
            flag = db.execute(
                select(connections.c.approval_mode).where(connections.c.id == connection_id)
            ).scalar_one_or_none()
        return flag is None or bool(flag)

    def set_by_person(self, connection_id: str, *, on: bool, code: str | None) -> bool:
        """Turn approval mode of ``connection_id`` ``on`` or off with the person's own current
        code, spent on this act (``approval_mode_on`` / ``approval_mode_off``, journalled).
        Raises ``PersonRefused`` (journalled) for any other code, and when this rail holds no
        person codes. Whether it changed."""
        persons = self._persons
        if persons is None:
            raise PersonRefused(NO_PERSON_CODES)
        act = APPROVAL_MODE_ON if on else APPROVAL_MODE_OFF
        persons.authorize(connection_id, code, act=act, detail={"approval_mode": on})
        return self._set(connection_id, on=on)

    def set_by_operator(self, connection_id: str, *, on: bool, ledger: Ledger) -> bool:
        """The operator turns approval mode of ``connection_id`` on (it only tightens: no
        one's consent, journalled ``approval_mode`` on ``ledger``); whether it changed.
        Turning it off is refused ``ApprovalModeRefused``, journalled ``person_act``."""
        detail = {"connection": connection_digest(connection_id)}
        if not on:
            journal_person_refusal(
                ledger, connection_id, APPROVAL_MODE_OFF, OPERATOR_CREDENTIAL, detail
            )
            raise ApprovalModeRefused()
        changed = self._set(connection_id, on=True)
        ledger.journal.append(
            identity=_OPERATOR_IDENTITY,
            kind="approval_mode",
            why="the operator turned a connection's approval mode on",
            detail={**detail, "approval_mode": True, "changed": changed},
        )
        return changed

    def _set(self, connection_id: str, *, on: bool) -> bool:
        with write_transaction(self._engine) as tx:
            changed = tx.execute(
                update(connections)
                .where(connections.c.id == connection_id, connections.c.approval_mode != on)
                .values(approval_mode=on)
            )
        return changed.rowcount == 1

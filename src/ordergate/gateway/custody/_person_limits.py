"""A person's own limits for their connection, anywhere up to the operator's ceiling.

On a hosted rail the operator's policy (the one applied on the ledger) is the **ceiling**:
every cap of its ``[limits]`` (``ordergate.policy.CAP_DIRECTIONS``; ``min_cash_usd`` is a
floor, so its "ceiling" is the lowest it may go). Each connection may hold a value of its own
for any of them (``connection_limits``, gateway migration 0037); the guard checks its orders
against the tighter of the two (``overrides_of``, read by ``SealedBackend`` each time it hands
out the connection's guard, the same read as its approval mode's), so lowering the ceiling
tightens every connection at once and a value set under an older, higher ceiling never
loosens past the one in force.

Who sets what:

- **the person**, with their own code (``PersonCodes.authorize``, act ``limits_set``,
  journalled ``person_act``): any value up to the ceiling, looser or tighter than their own,
  or ``None`` for "up to the ceiling". A value beyond the ceiling is refused naming the field
  (``limit_above_ceiling``, journalled, no code spent); the operator's code is no code of
  theirs.
- **the operator**, with no one's consent (it only tightens): a value at most the
  connection's current one (``tighten``; one looser is refused ``limit_loosens`` naming the
  field — loosening a person's limits is theirs alone), journalled ``connection_limits``.

Values travel as the policy file writes them (a Decimal as a string, a count as an integer)
and are checked by ``ordergate.policy.policy_from_mapping``'s own rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from ordergate.core import Clock, ConfigError
from ordergate.gateway._owner import connection_digest
from ordergate.gateway._schema import connection_limits, connections
from ordergate.gateway.custody._person import NO_PERSON_CODES, PersonCodes, PersonRefused
from ordergate.ledger import Ledger
from ordergate.policy import (
    CAP_DIRECTIONS,
    OPTION_CAP_DIRECTIONS,
    PolicyConfig,
    policy_from_mapping,
)
from ordergate.policy.options import OptionsPolicy
from ordergate.profiles import PolicyOverrides
from ordergate.store import write_transaction

__all__ = [
    "LIMITS_SET",
    "ConnectionLimits",
    "LimitRefused",
    "OwnLimits",
    "overrides_of",
]

LIMITS_SET = "limits_set"
PERSON = "person"
OPERATOR = "operator"
_OPERATOR_IDENTITY = "unverified"  # the desk's identity for acts that only tighten
_OPTIONS = "options."
DIRECTIONS: Mapping[str, bool] = MappingProxyType(
    {**CAP_DIRECTIONS, **{_OPTIONS + name: low for name, low in OPTION_CAP_DIRECTIONS.items()}}
)
"""Each cap a connection sets (``[limits]``'s by name, ``[options]``'s as ``options.<name>``)
and whether a lower number is the tighter one."""
_DECIMAL_CAPS = frozenset(
    name for name in CAP_DIRECTIONS if isinstance(getattr(PolicyConfig(), name), Decimal)
) | frozenset(
    _OPTIONS + name
    for name in OPTION_CAP_DIRECTIONS
    if isinstance(getattr(OptionsPolicy(), name), Decimal)
)


def _field(name: str) -> str:
    """The dotted key of the cap ``name`` as the policy file writes it."""
    return name if name.startswith(_OPTIONS) else f"limits.{name}"


def cap_of(policy: PolicyConfig, name: str) -> Decimal | int | None:
    """The value of the cap ``name`` in ``policy``; ``None`` for an ``[options]`` cap of a
    policy without ``[options]`` (every option order refused: nothing to set under)."""
    if name.startswith(_OPTIONS):
        options = policy.options
        return None if options is None else getattr(options, name.removeprefix(_OPTIONS))
    value: Decimal | int = getattr(policy, name)
    return value


class LimitRefused(Exception):
    """A limit refused: ``status``, ``code``, ``field`` (``limits.<name>``, or ``limits``)."""

    def __init__(self, status: int, code: str, field: str, message: str) -> None:
        self.status = status
        self.code = code
        self.field = field
        super().__init__(message)


def _value(name: str, text: str) -> Decimal | int:
    return Decimal(text) if name in _DECIMAL_CAPS else int(text)


@dataclass(frozen=True, slots=True)
class OwnLimits:
    """A connection's own values of the caps (``DIRECTIONS``' names); ``apply`` takes the
    tighter of each and the policy's, so it never loosens a policy."""

    values: Mapping[str, Decimal | int] = field(default_factory=dict)

    def apply(self, policy: PolicyConfig) -> PolicyConfig:
        """``policy`` tightened by these values (``policy`` itself when none tightens).
        Raises ``ConfigError`` when the result is no valid policy (refused when set)."""
        top: dict[str, Any] = {n: v for n, v in self.values.items() if n in CAP_DIRECTIONS}
        narrowed = PolicyOverrides(**top).apply(policy) if top else policy
        options = narrowed.options
        asked = {
            name.removeprefix(_OPTIONS): value
            for name, value in self.values.items()
            if name.startswith(_OPTIONS)
        }
        if not asked or options is None:
            return narrowed
        tighter: dict[str, Any] = {
            key: _in_force(_OPTIONS + key, getattr(options, key), value)
            for key, value in asked.items()
        }
        return replace(narrowed, options=replace(options, **tighter))


def overrides_of(engine: Engine, connection_id: str) -> OwnLimits:
    """The connection's own limits, to narrow the ceiling with (``OwnLimits.apply``); one
    primary-key range read."""
    query = select(connection_limits.c.name, connection_limits.c.value).where(
        connection_limits.c.connection_id == connection_id
    )
    with engine.connect() as db:
        rows = db.execute(query).all()
    return OwnLimits(
        {row.name: _value(row.name, row.value) for row in rows if row.name in DIRECTIONS}
    )


def _tighter(name: str, one: Decimal | int, other: Decimal | int) -> bool:
    """Whether ``one`` is strictly tighter than ``other`` for the cap ``name``."""
    return one < other if DIRECTIONS[name] else one > other


def _in_force(name: str, ceiling: Decimal | int, own: Decimal | int | None) -> Decimal | int:
    """The tighter of the ceiling and the connection's own value of the cap ``name``."""
    return ceiling if own is None or not _tighter(name, own, ceiling) else own


def _parsed(asked: object, *, allow_none: bool) -> dict[str, Decimal | int | None]:
    """``asked`` (``{name: value}``) checked by the policy file's rules; ``LimitRefused``
    naming the first bad field."""
    if not isinstance(asked, Mapping) or not asked:
        raise LimitRefused(
            400, "invalid_limits", "limits", "limits must map at least one cap to its value."
        )
    values: dict[str, Decimal | int | None] = {}
    for name, raw in asked.items():
        key = _field(str(name))
        if name not in DIRECTIONS:
            raise LimitRefused(400, "unknown_limit", key, "That is no cap a connection sets.")
        if raw is None:
            if not allow_none:
                raise LimitRefused(400, "invalid_limit", key, "Give the cap a value.")
            values[name] = None
            continue
        table, _, cap = key.partition(".")
        try:
            parsed = policy_from_mapping({table: {cap: raw}})
        except ConfigError as error:
            raise LimitRefused(400, "invalid_limit", f"{error.key}", error.reason) from None
        values[name] = cap_of(parsed, name)
    return values


def _wire(value: Decimal | int | None) -> str | int | None:
    if value is None or isinstance(value, int):
        return value
    return str(value)


def _beyond(name: str, bound: Decimal | int | None, code: str, said: str) -> LimitRefused:
    if bound is None:
        return LimitRefused(
            403, code, _field(name), "Options are not traded on this rail: no cap to set."
        )
    side = "at most" if DIRECTIONS[name] else "at least"
    return LimitRefused(403, code, _field(name), f"{said}: it must be {side} {bound}.")


def _valid(
    ceiling: PolicyConfig,
    own: Mapping[str, Decimal | int],
    values: Mapping[str, Decimal | int | None],
) -> None:
    """``LimitRefused`` naming the field when the connection's limits with ``values``
    make no valid policy under ``ceiling`` (a minimum days to expiry past the maximum)."""
    merged = {**own, **values}
    try:
        OwnLimits({n: v for n, v in merged.items() if v is not None}).apply(ceiling)
    except ConfigError as error:
        raise LimitRefused(400, "invalid_limit", error.key, error.reason) from None


class ConnectionLimits:
    """Reads and sets each connection's own limits (blocking calls); ``ceiling`` reads the
    rail's policy in force."""

    def __init__(
        self,
        engine: Engine,
        *,
        persons: PersonCodes | None,
        ledger: Ledger,
        ceiling: Callable[[], PolicyConfig],
        clock: Clock,
    ) -> None:
        self._engine = engine
        self._persons = persons
        self._ledger = ledger
        self._ceiling = ceiling
        self._clock = clock

    def view(self, connection_id: str) -> list[dict[str, Any]]:
        """Each cap: the ceiling, the connection's own value (``None``: none), the one in
        force (the tighter) and who set the own value."""
        ceiling = self._ceiling()
        query = select(connection_limits).where(connection_limits.c.connection_id == connection_id)
        with self._engine.connect() as db:
            own = {row.name: row for row in db.execute(query)}
        shown = []
        for name in DIRECTIONS:
            top = cap_of(ceiling, name)
            if top is None:
                continue  # no [options] on the rail: no option cap to show or set
            row = own.get(name)
            mine = _value(name, row.value) if row is not None else None
            in_force = _in_force(name, top, mine)
            shown.append(
                {
                    "name": name,
                    "ceiling": _wire(top),
                    "own": _wire(mine),
                    "in_force": _wire(in_force),
                    "set_by": row.set_by if row is not None else None,
                    "floor": not DIRECTIONS[name],
                }
            )
        return shown

    def within_ceiling(
        self, connection_id: str, asked: object
    ) -> tuple[dict[str, Decimal | int | None], dict[str, Any]]:
        """``asked`` checked as the person's own limits: each a valid cap within the
        ceiling (``LimitRefused`` otherwise, a value beyond the ceiling journalled
        ``person_act``); the values and what is journalled of them."""
        values = _parsed(asked, allow_none=True)
        ceiling = self._ceiling()
        detail = {"limits": {name: _wire(value) for name, value in values.items()}}
        for name, value in values.items():
            top = cap_of(ceiling, name)
            if value is not None and (top is None or _tighter(name, top, value)):
                if self._persons is not None:
                    self._persons.refuse(
                        connection_id, LIMITS_SET, "limit_above_ceiling",
                        {**detail, "field": name},
                    )  # fmt: skip
                raise _beyond(name, top, "limit_above_ceiling", "That is beyond the rail's ceiling")
        return values, detail

    def set_by_person(
        self, connection_id: str, asked: object, code: str | None, *, passkey: bool = False
    ) -> dict[str, Any]:
        """The person's own limits set to ``asked`` (``None``: up to the ceiling) with their
        current code, spent on this act (``passkey``: their console verified their passkey
        for it, journalled there). ``LimitRefused`` (journalled) for a value beyond the
        ceiling or not a valid cap; ``PersonRefused`` (journalled) for any other code."""
        persons = self._persons
        if persons is None:
            raise PersonRefused(NO_PERSON_CODES)
        values, detail = self.within_ceiling(connection_id, asked)
        if not passkey:
            persons.authorize(connection_id, code, act=LIMITS_SET, detail=detail)
        ceiling = self._ceiling()
        self._write(
            connection_id, values, by=PERSON, check=lambda own: _valid(ceiling, own, values)
        )
        return {"limits": self.view(connection_id)}

    def tighten(self, connection_id: str, asked: object) -> dict[str, Any]:
        """The operator tightens the connection's limits to ``asked`` (no one's consent: each
        value at most the one in force). ``LimitRefused`` naming the field of one that would
        loosen (only the person loosens their limits). Journalled ``connection_limits``."""
        values = _parsed(asked, allow_none=False)
        ceiling = self._ceiling()

        def no_looser(own: Mapping[str, Decimal | int]) -> None:
            for name, value in values.items():
                assert value is not None
                top = cap_of(ceiling, name)
                current = None if top is None else _in_force(name, top, own.get(name))
                if current is None or _tighter(name, current, value):
                    raise _beyond(
                        name,
                        current,
                        "limit_loosens",
                        "Only the person who owns the connection loosens its limits: the "
                        "operator's value",
                    )
            _valid(ceiling, own, values)

        def journalled(tx: Any) -> None:
            self._ledger.journal.append(
                identity=_OPERATOR_IDENTITY,
                kind="connection_limits",
                why="the operator tightened a connection's limits",
                detail={
                    "connection": connection_digest(connection_id),
                    "limits": {name: _wire(value) for name, value in values.items()},
                },
                connection=tx,
            )

        self._write(connection_id, values, by=OPERATOR, check=no_looser, then=journalled)
        return {"limits": self.view(connection_id)}

    def _write(
        self,
        connection_id: str,
        values: Mapping[str, Decimal | int | None],
        by: str,
        *,
        check: Callable[[Mapping[str, Decimal | int]], None] | None = None,
        then: Callable[[Any], None] | None = None,
    ) -> None:
        """Write ``values`` with the connection's row locked, after ``check`` passed on its
        own values read under that lock (so a person's write between the operator's check
        and write cannot be loosened by it); ``then`` runs in the same transaction."""
        at = self._clock.now().isoformat()
        with write_transaction(self._engine) as tx:
            tx.execute(
                select(connections.c.id).where(connections.c.id == connection_id).with_for_update()
            )
            if check is not None:
                rows = tx.execute(
                    select(connection_limits.c.name, connection_limits.c.value).where(
                        connection_limits.c.connection_id == connection_id
                    )
                )
                check({row.name: _value(row.name, row.value) for row in rows})
            for name, value in values.items():
                tx.execute(
                    delete(connection_limits).where(
                        connection_limits.c.connection_id == connection_id,
                        connection_limits.c.name == name,
                    )
                )
                if value is not None:
                    tx.execute(
                        insert(connection_limits).values(
                            connection_id=connection_id,
                            name=name,
                            value=str(value),
                            set_by=by,
                            set_at=at,
                        )
                    )
            if then is not None:
                then(tx)

"""``PersonCodes``: a person's own authenticator code for their sealed connection.

On a hosted rail (sealed custody) the person who signs in at the upstream on the consent
flow enrols a TOTP secret of their own for that connection (``new_secret``: shown once as an
``otpauth://`` URI and QR code on the callback's page, ``_person_page``; confirmed with a
first code, ``confirm``).
The secret is sealed under the connection's own data key — the same envelope as its session
(``ordergate.gateway.keys``), with ``person-totp:<id>`` as associated data — so a rotation of
the key-encryption key carries it and erasing the connection shreds it.

``authorize`` checks that code for the connection's owner acts (approving its held orders):
a current code of a step later than the last one spent (RFC 6238 §5.2: each code once), spent
in the same write transaction that reads the row, every outcome journalled as ``person_act``
under the connection's identity — never the code. Nothing else authorizes them: the
operator's owner code is not this connection's code, so it is refused like any wrong one.

Wrong (or replayed) codes are counted per connection with the owner's per-source lockout
(``ordergate.owner``'s ``count_failure``: ``SOURCE_FAILURES`` within ``SOURCE_WINDOW`` lock
the connection's acts for a minute, doubling with each lock of the day), its state on the
ledger's database, shared by replicas; while the lock holds no code is checked for that
connection (``person_code_locked``, 429), and a right code forgives it. Every refusal is
journalled, with ``locked_until`` when a lock holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, select, update

from ordergate.core import Clock, Secret
from ordergate.gateway._owner import connection_digest, digest_in, identity_of
from ordergate.gateway._schema import connections
from ordergate.gateway._seal import SealError
from ordergate.gateway.keys import (
    Envelope,
    KeyProvider,
    KeyProviderError,
    open_envelope,
    seal_envelope,
)
from ordergate.gateway.oauth._records import ConnectionKind, ConnectionState
from ordergate.ledger import Ledger
from ordergate.owner import (
    count_failure,
    forgive,
    matching_step,
    new_totp_secret,
    provisioning_uri,
    source_locked,
)
from ordergate.store import write_transaction

__all__ = [
    "NO_PERSON_CODES",
    "OPERATOR_CREDENTIAL",
    "PERSON_FIELD",
    "PersonCodes",
    "PersonRefused",
    "journal_person_act",
    "journal_person_refusal",
    "new_secret",
    "person_aad",
    "seal_person_secret",
    "sealed_connection_of",
]

PERSON_FIELD = "person_code"

NOT_ENROLLED = "person_not_enrolled"
CODE_MISSING = "person_code_required"
CODE_WRONG = "person_code_wrong"
CODE_REPLAYED = "person_code_replayed"
CODE_LOCKED = "person_code_locked"
OPERATOR_CREDENTIAL = "person_act_operator_refused"
NO_PERSON_CODES = "person_codes_unavailable"
_MESSAGES = {
    OPERATOR_CREDENTIAL: "this order belongs to a person's connection: only that person's own "
    "code approves it, never the operator's passkey or code",
    NO_PERSON_CODES: "this order belongs to a person's connection: only that person's own "
    "code approves it, on the running rail (which holds the keys to check it)",
    NOT_ENROLLED: "this connection has no confirmed code of its own, so none of its owner "
    "acts can be authorized; connect again to enrol one",
    CODE_MISSING: "this act needs the code of the person who owns the connection",
    CODE_WRONG: "that is not a current code of the person who owns this connection (the "
    "operator's code authorizes nothing in a person's account)",
    CODE_REPLAYED: "that code was already used; wait for the next one",
    CODE_LOCKED: "too many wrong codes for this connection lately: no code is checked for it "
    "until the lock ends",
}
_STATUS = {
    NOT_ENROLLED: 403,
    CODE_MISSING: 401,
    CODE_WRONG: 403,
    CODE_REPLAYED: 403,
    CODE_LOCKED: 429,
    OPERATOR_CREDENTIAL: 403,
    NO_PERSON_CODES: 403,
}


class PersonRefused(Exception):
    """A person's act refused: ``reason`` (stable), ``status`` (HTTP)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.status = _STATUS[reason]
        super().__init__(_MESSAGES[reason])


def person_aad(connection_id: str) -> bytes:
    return b"person-totp:" + connection_id.encode("ascii")


def new_secret() -> Secret:
    """A fresh TOTP secret for a person to enrol."""
    return new_totp_secret()


def seal_person_secret(
    keys: KeyProvider, secret: Secret, connection_id: str, data_key: Envelope
) -> str:
    """``secret`` sealed under the connection's data key (``data_key``: its session's envelope)."""
    return seal_envelope(
        keys,
        secret.reveal().encode("ascii"),
        aad=person_aad(connection_id),
        data_key=data_key.data_key,
        wrapped=(data_key.kek_id, data_key.data_key_wrapped),
    ).sealed


def sealed_connection_of(engine: Engine, identity: str) -> str | None:
    """The sealed connection (a person's) whose hashed id ``identity`` names — its own, or a
    caller token's bound to it —, erased ones included; ``None`` for any other identity."""
    wanted = digest_in(identity)
    if wanted is None:
        return None
    query = select(connections.c.id).where(connections.c.kind == ConnectionKind.SEALED)
    with engine.connect() as db:
        for row in db.execute(query):
            if connection_digest(row.id) == wanted:
                return str(row.id)
    return None


def _source_of(connection_id: str) -> str:
    """Where wrong codes for ``connection_id`` are counted: a lockout source of its own
    (``ordergate.owner``'s per-source lockout, on the ledger every replica shares)."""
    return "person:" + connection_digest(connection_id)


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _entry(
    act: str, outcome: str, reason: str | None, detail: Mapping[str, Any], at: str
) -> dict[str, Any]:
    entry: dict[str, Any] = {"act": act, "outcome": outcome, "at": at}
    if reason is not None:
        entry["reason"] = reason
    if detail:
        entry["detail"] = dict(detail)
    return entry


def journal_person_refusal(
    ledger: Ledger, connection_id: str, act: str, reason: str, detail: Mapping[str, Any]
) -> None:
    """Journal a person's act refused before any code was checked."""
    ledger.journal.append(
        identity=identity_of(connection_id),
        kind="person_act",
        why=f"person act {act} refused ({reason})",
        detail=_entry(str(act), "refused", reason, detail, utc_now_iso()),
    )


_ROW = select(
    connections.c.kind,
    connections.c.state,
    connections.c.data_key_wrapped,
    connections.c.kek_id,
    connections.c.person_totp_sealed,
    connections.c.person_totp_step,
)


class PersonCodes:
    def __init__(self, engine: Engine, *, keys: KeyProvider, ledger: Ledger, clock: Clock) -> None:
        self._engine = engine
        self._keys = keys
        self._ledger = ledger
        self._clock = clock

    def __repr__(self) -> str:
        return "PersonCodes(<sealed>)"

    def _secret(self, row: Any, connection_id: str) -> Secret | None:
        if (
            row is None
            or row.kind != ConnectionKind.SEALED
            or row.state != ConnectionState.LIVE
            or row.person_totp_sealed is None
            or row.data_key_wrapped is None
            or row.kek_id is None
        ):
            return None
        try:
            plain, _ = open_envelope(
                self._keys,
                row.person_totp_sealed,
                data_key_wrapped=row.data_key_wrapped,
                kek_id=row.kek_id,
                aad=person_aad(connection_id),
            )
        except (KeyProviderError, SealError):
            return None
        return Secret(plain.decode("ascii"))

    def enrolling_uri(self, connection_id: str) -> str | None:
        """The ``otpauth://`` URI of the connection's code while it awaits its first code."""
        with self._engine.connect() as db:
            row = db.execute(_ROW.where(connections.c.id == connection_id)).first()
        secret = self._secret(row, connection_id)
        if secret is None or row is None or row.person_totp_step is not None:
            return None
        return provisioning_uri(secret, account=f"rail-{connection_id[:8]}")

    def confirm(self, connection_id: str, code: str) -> bool:
        """Confirm the enrolment with a first current code (spent). Whether it was."""
        with write_transaction(self._engine) as tx:
            row = tx.execute(
                _ROW.where(connections.c.id == connection_id).with_for_update()
            ).first()
            secret = self._secret(row, connection_id)
            if secret is None or row is None or row.person_totp_step is not None:
                return False
            step = matching_step(secret, code, now=self._clock.now())
            if step is None:
                return False
            tx.execute(
                update(connections)
                .where(connections.c.id == connection_id)
                .values(person_totp_step=step)
            )
            self._journal(tx, connection_id, "enrol", "confirmed", None, {})
        return True

    def authorize(
        self, connection_id: str, code: str | None, *, act: str, detail: Mapping[str, Any]
    ) -> None:
        """Spend ``code`` on ``act`` of ``connection_id``; ``PersonRefused`` otherwise. Each
        outcome is journalled."""
        source = _source_of(connection_id)
        with write_transaction(self._engine) as tx:
            row = tx.execute(
                _ROW.where(connections.c.id == connection_id).with_for_update()
            ).first()
            now = self._clock.now()
            secret = self._secret(row, connection_id)
            reason: str | None = None
            lock: datetime | None = source_locked(tx, source, now)
            if secret is None or row is None or row.person_totp_step is None:
                reason = NOT_ENROLLED
            elif lock is not None:
                reason = CODE_LOCKED  # no code is checked while it holds
            elif not code:
                reason = CODE_MISSING
            else:
                step = matching_step(secret, code, now=now)
                if step is None:
                    reason = CODE_WRONG
                elif step <= row.person_totp_step:
                    reason = CODE_REPLAYED
                else:
                    tx.execute(
                        update(connections)
                        .where(connections.c.id == connection_id)
                        .values(person_totp_step=step)
                    )
                    forgive(tx, source)
                if reason is not None:
                    taken = count_failure(tx, source, now)
                    lock = taken.until if taken is not None else None
            if lock is not None:
                detail = {**detail, "locked_until": lock.isoformat()}
            self._journal(
                tx, connection_id, act, "refused" if reason else "authorised", reason, detail
            )
        if reason is not None:
            raise PersonRefused(reason)

    def refuse(self, connection_id: str, act: str, reason: str, detail: Mapping[str, Any]) -> None:
        """Journal ``act`` of ``connection_id`` refused for ``reason`` (no code checked)."""
        with write_transaction(self._engine) as tx:
            self._journal(tx, connection_id, str(act), "refused", reason, detail)

    def _journal(
        self,
        tx: Any,
        connection_id: str,
        act: str,
        outcome: str,
        reason: str | None,
        detail: Mapping[str, Any],
    ) -> None:
        journal_person_act(
            self._ledger, tx, connection_id, act, outcome, reason, detail,
            credential="person_totp", at=self._clock.now().isoformat(),
        )  # fmt: skip


def journal_person_act(
    ledger: Ledger,
    tx: Any,
    connection_id: str,
    act: str,
    outcome: str,
    reason: str | None,
    detail: Mapping[str, Any],
    *,
    credential: str,
    at: str,
) -> None:
    """Journal a person's ``act`` on ``connection_id`` (inside ``tx``) as ``person_act`` under
    the connection's identity, with the ``credential`` it was checked with (never its value)."""
    entry = _entry(act, outcome, reason, detail, at)
    entry["credential"] = credential
    ledger.journal.append(
        identity=identity_of(connection_id),
        kind="person_act",
        why=f"person act {act} {outcome}" + (f" ({reason})" if reason else ""),
        detail=entry,
        connection=tx,
    )

"""``PersonPasskeys``: a person's own passkey for their sealed connection (a hosted rail).

The person who signed in at the upstream on the consent flow may register a passkey for that
connection before their client gets its code (``registration_options``, ``enrol``): the same
WebAuthn ceremony as the operator's passkeys (``ordergate.gateway.passkeys``), at the rail's
public host, as a discoverable credential whose user handle is the connection (so signing in
needs no name typed). What is kept is the credential's id and public key, sealed under the
connection's own data key with ``person-passkey:<id>`` as associated data — the same envelope
as its session and the person's code — so a rotation of the key-encryption key carries it and
erasing the connection shreds it; beside it, SHA-256 of the credential id (to find the
connection an assertion claims) and the signature counter. One passkey per connection.

``authenticate`` answers the connection a verified assertion belongs to, and nothing for an
erased, dead or owner connection. Each enrolment and each sign-in is journalled as
``person_act`` under the connection's identity with ``credential: person_passkey``; so is
each assertion refused (``person_passkey_unknown``, ``person_passkey_other_connection``,
``person_passkey_refused``), under the connection it was for, or ``unverified`` when it names
none (a passkey registered nowhere).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Engine, select, update
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import ResidentKeyRequirement

from ordergate.core import Clock
from ordergate.gateway._schema import connections
from ordergate.gateway._seal import SealError
from ordergate.gateway.custody._person import journal_person_act
from ordergate.gateway.keys import (
    KeyProvider,
    KeyProviderError,
    open_envelope,
    seal_envelope,
    unwrapped_data_key,
)
from ordergate.gateway.oauth._records import ConnectionKind, ConnectionState
from ordergate.gateway.passkeys import (
    Ceremony,
    Holder,
    PasskeyError,
    RelyingParty,
    StoredPasskey,
    claimed_credential,
)
from ordergate.ledger import Ledger
from ordergate.store import write_transaction

__all__ = ["CREDENTIAL", "PersonPasskeys", "passkey_aad"]

CREDENTIAL = "person_passkey"
UNKNOWN_PASSKEY = "person_passkey_unknown"
OTHER_CONNECTION = "person_passkey_other_connection"
ASSERTION_REFUSED = "person_passkey_refused"
NO_CONNECTION = "unverified"
"""The journal's identity for a passkey registered to no connection."""

_ROW = select(
    connections.c.id,
    connections.c.kind,
    connections.c.state,
    connections.c.data_key_wrapped,
    connections.c.kek_id,
    connections.c.person_passkey_sealed,
    connections.c.person_passkey_count,
)


def passkey_aad(connection_id: str) -> bytes:
    return b"person-passkey:" + connection_id.encode("ascii")


def _credential_digest(credential_id: str) -> str:
    return hashlib.sha256(credential_id.encode("ascii", "replace")).hexdigest()


def _holder(connection_id: str) -> Holder:
    return Holder(
        user_id=connection_id.encode("ascii"),
        name=f"rail-{connection_id[:8]}",
        display_name="your connection to this ordergate rail",
        resident=ResidentKeyRequirement.REQUIRED,
    )


def _keyed(row: Any) -> bool:
    return (
        row is not None
        and row.kind == ConnectionKind.SEALED
        and row.state == ConnectionState.LIVE
        and row.data_key_wrapped is not None
        and row.kek_id is not None
    )


class PersonPasskeys:
    def __init__(
        self,
        engine: Engine,
        *,
        keys: KeyProvider,
        ledger: Ledger,
        party: RelyingParty | None,
        clock: Clock,
    ) -> None:
        self._engine = engine
        self._keys = keys
        self._ledger = ledger
        self._ceremony = Ceremony(party)
        self._clock = clock

    def __repr__(self) -> str:
        return "PersonPasskeys(<sealed>)"

    @property
    def party(self) -> RelyingParty | None:
        return self._ceremony.party

    def registration_options(self, connection_id: str) -> tuple[str, str]:
        """The options JSON for the connection's passkey and its challenge. Raises
        ``PasskeyError`` when the connection cannot take one (not live, or it has one)."""
        with self._engine.connect() as db:
            row = db.execute(_ROW.where(connections.c.id == connection_id)).first()
        if not _keyed(row) or row is None:
            raise PasskeyError("this connection cannot take a passkey")
        if row.person_passkey_sealed is not None:
            raise PasskeyError("this connection has its passkey already")
        return self._ceremony.registration_options(_holder(connection_id), ())

    def enrol(self, connection_id: str, credential: str, challenge: str) -> None:
        """Verify the registration response and keep it, sealed, as the connection's passkey.
        Raises ``PasskeyError`` when it does not verify or the connection cannot take it."""
        verified = self._ceremony.verify_registration(credential, challenge)
        kept = json.dumps(
            {"id": verified.credential_id, "key": bytes_to_base64url(verified.public_key)}
        ).encode("utf-8")
        with write_transaction(self._engine) as tx:
            row = tx.execute(
                _ROW.where(connections.c.id == connection_id).with_for_update()
            ).first()
            if not _keyed(row) or row is None or row.person_passkey_sealed is not None:
                raise PasskeyError("this connection cannot take a passkey")
            try:
                data_key = unwrapped_data_key(
                    self._keys, data_key_wrapped=row.data_key_wrapped, kek_id=row.kek_id
                )
            except (KeyProviderError, SealError):
                raise PasskeyError("this connection's key does not open here") from None
            sealed = seal_envelope(
                self._keys,
                kept,
                aad=passkey_aad(connection_id),
                data_key=data_key,
                wrapped=(row.kek_id, row.data_key_wrapped),
            ).sealed
            tx.execute(
                update(connections)
                .where(connections.c.id == connection_id)
                .values(
                    person_passkey_sealed=sealed,
                    person_passkey_sha256=_credential_digest(verified.credential_id),
                    person_passkey_count=verified.sign_count,
                )
            )
            self._journal(tx, connection_id, "passkey_enrol", "confirmed", {})

    def enrolled(self, connection_id: str) -> bool:
        """Whether the live connection ``connection_id`` has its passkey."""
        with self._engine.connect() as db:
            row = db.execute(_ROW.where(connections.c.id == connection_id)).first()
        return _keyed(row) and row is not None and row.person_passkey_sealed is not None

    def authentication_options(self, connection_id: str | None = None) -> tuple[str, str]:
        """The options JSON for ``navigator.credentials.get`` and its challenge: any of this
        rail's discoverable passkeys (a sign-in), or ``connection_id``'s (an act of it)."""
        allowed = [] if connection_id is None else [self._stored(connection_id).credential_id]
        return self._ceremony.authentication_options(allowed)

    def _stored(self, connection_id: str) -> StoredPasskey:
        with self._engine.connect() as db:
            row = db.execute(_ROW.where(connections.c.id == connection_id)).first()
        return self._opened(row)

    def _opened(self, row: Any) -> StoredPasskey:
        if not _keyed(row) or row is None or row.person_passkey_sealed is None:
            raise PasskeyError("that passkey is not registered here")
        try:
            plain, _ = open_envelope(
                self._keys,
                row.person_passkey_sealed,
                data_key_wrapped=row.data_key_wrapped,
                kek_id=row.kek_id,
                aad=passkey_aad(row.id),
            )
            kept = json.loads(plain)
            return StoredPasskey(
                str(kept["id"]), base64url_to_bytes(str(kept["key"])), row.person_passkey_count
            )
        except (KeyProviderError, SealError, ValueError, KeyError, TypeError):
            raise PasskeyError("that passkey is not registered here") from None

    def authenticate(
        self,
        credential: str,
        challenge: str,
        *,
        act: str,
        detail: Mapping[str, Any] | None = None,
        connection_id: str | None = None,
    ) -> str:
        """Verify an assertion against ``challenge`` and the passkey it claims: the
        connection it belongs to (which must be ``connection_id`` when given); its counter
        moves on and ``act`` is journalled. Raises ``PasskeyError`` otherwise, journalled
        too (``refused``): under ``connection_id`` when given, else under the connection the
        passkey is registered to, else (a passkey registered nowhere) under no connection."""
        reason = UNKNOWN_PASSKEY
        owner: str | None = None
        digest = ""
        try:
            claimed = claimed_credential(credential)
            digest = _credential_digest(claimed)
            with write_transaction(self._engine) as tx:
                row = tx.execute(
                    _ROW.where(connections.c.person_passkey_sha256 == digest).with_for_update()
                ).first()
                stored = self._opened(row)
                assert row is not None
                if stored.credential_id != claimed:
                    raise PasskeyError("that passkey is not registered here")
                owner = str(row.id)
                if connection_id is not None and owner != connection_id:
                    reason = OTHER_CONNECTION
                    raise PasskeyError("that passkey is another connection's")
                reason = ASSERTION_REFUSED
                count = self._ceremony.verify_assertion(credential, challenge, stored)
                tx.execute(
                    update(connections)
                    .where(connections.c.id == row.id)
                    .values(person_passkey_count=count)
                )
                self._journal(tx, str(row.id), act, "authorised", detail or {})
        except PasskeyError:
            self._refused(connection_id or owner, act, reason, detail or {}, digest)
            raise
        return owner

    def _refused(
        self,
        connection_id: str | None,
        act: str,
        reason: str,
        detail: Mapping[str, Any],
        digest: str,
    ) -> None:
        """Journal a refused assertion (the transaction that read it was rolled back):
        ``person_act`` under the connection it was for, or ``unverified`` for none, with the
        SHA-256 of the credential id it claimed (never the assertion)."""
        told = {**detail, "credential_sha256": digest}
        at = self._clock.now().isoformat()
        if connection_id is not None:
            with write_transaction(self._engine) as tx:
                journal_person_act(
                    self._ledger, tx, connection_id, act, "refused", reason, told,
                    credential=CREDENTIAL, at=at,
                )  # fmt: skip
            return
        self._ledger.journal.append(
            identity=NO_CONNECTION,
            kind="person_act",
            why=f"person act {act} refused ({reason})",
            detail={
                "act": act, "outcome": "refused", "reason": reason, "at": at,
                "credential": CREDENTIAL, "detail": told,
            },
        )  # fmt: skip

    def _journal(
        self, tx: Any, connection_id: str, act: str, outcome: str, detail: Mapping[str, Any]
    ) -> None:
        journal_person_act(
            self._ledger, tx, connection_id, act, outcome, None, detail,
            credential=CREDENTIAL, at=self._clock.now().isoformat(),
        )  # fmt: skip

"""The owner's passkeys on the console: register, then sign in (the ceremony is
``ordergate.gateway.passkeys``, the same one a person's passkey goes through; this module is
the operator's store of them, ``console_passkeys``).

The relying party is the gateway's public URL when its host is a name (``RelyingParty``): a
console served at ``127.0.0.1`` asks the owner to open it at ``localhost`` for passkeys; one
served at any other IP address has none. Only the credential id, its COSE public key and its
signature counter are kept.

Registering is an act that loosens: ``verify_registration`` checks the ceremony and answers
what to keep, which the owner's delay holds (``ordergate.gateway.desk.DelayedActs``) until
``keep`` stores it; until then the passkey signs nobody in. ``revoke`` removes one at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

from ordergate.core import Clock
from ordergate.gateway.console._tables import console_passkeys
from ordergate.gateway.passkeys import (
    Ceremony,
    Holder,
    PasskeyError,
    RelyingParty,
    StoredPasskey,
    claimed_credential,
)
from ordergate.store import iso

__all__ = ["PasskeyError", "Passkeys", "RelyingParty"]

_OWNER = Holder(user_id=b"ordergate-owner", name="owner", display_name="ordergate owner")


class Passkeys:
    def __init__(self, engine: Engine, party: RelyingParty | None, *, clock: Clock) -> None:
        self._engine = engine
        self._ceremony = Ceremony(party)
        self._clock = clock

    def any(self) -> bool:
        with self._engine.connect() as db:
            return db.execute(select(console_passkeys.c.credential_id).limit(1)).first() is not None

    @property
    def party(self) -> RelyingParty | None:
        """The relying party; ``None`` when the console is served at an IP address that is
        not loopback (no passkeys then)."""
        return self._ceremony.party

    def listed(self) -> list[dict[str, Any]]:
        with self._engine.connect() as db:
            rows = db.execute(select(console_passkeys).order_by(console_passkeys.c.created_at))
            return [
                {
                    "label": row.label,
                    "credential_id": row.credential_id,
                    "credential": row.credential_id[:12] + "…",
                    "created_at": row.created_at,
                    "last_used_at": row.last_used_at,
                }
                for row in rows
            ]

    def _known(self) -> list[str]:
        with self._engine.connect() as db:
            return list(db.execute(select(console_passkeys.c.credential_id)).scalars())

    def registration_options(self) -> tuple[str, str]:
        """The options JSON for ``navigator.credentials.create`` and its challenge."""
        return self._ceremony.registration_options(_OWNER, self._known())

    def verify_registration(self, credential: str, challenge: str, *, label: str) -> dict[str, Any]:
        """Verify a registration response against ``challenge``: what ``keep`` stores once
        the owner's delay has passed (no secret: an id, a public key, a counter, a label).
        Raises ``PasskeyError`` when it does not verify."""
        verified = self._ceremony.verify_registration(credential, challenge)
        return {
            "credential_id": verified.credential_id,
            "public_key": bytes_to_base64url(verified.public_key),
            "sign_count": verified.sign_count,
            "label": label[:100],
        }

    def keep(self, verified: Mapping[str, Any]) -> None:
        """Store a verified registration (``verify_registration``): from now on it signs in."""
        with self._engine.begin() as db:
            db.execute(
                insert(console_passkeys).values(
                    credential_id=str(verified["credential_id"]),
                    public_key=base64url_to_bytes(str(verified["public_key"])),
                    sign_count=int(verified["sign_count"]),
                    label=str(verified["label"])[:100],
                    created_at=iso(self._clock.now()),
                )
            )

    def revoke(self, credential_id: str) -> bool:
        """Remove the passkey ``credential_id`` at once; whether there was one."""
        with self._engine.begin() as db:
            removed = db.execute(
                delete(console_passkeys).where(console_passkeys.c.credential_id == credential_id)
            )
        return bool(removed.rowcount)

    def authentication_options(self) -> tuple[str, str]:
        """The options JSON for ``navigator.credentials.get`` and its challenge."""
        return self._ceremony.authentication_options(self._known())

    def authenticate(self, credential: str, challenge: str) -> None:
        """Verify an assertion against ``challenge`` and a registered passkey; its counter
        moves on. Raises ``PasskeyError`` otherwise."""
        credential_id = claimed_credential(credential)
        with self._engine.connect() as db:
            row = db.execute(
                select(console_passkeys).where(console_passkeys.c.credential_id == credential_id)
            ).first()
        if row is None:
            raise PasskeyError("that passkey is not registered here")
        stored = StoredPasskey(credential_id, row.public_key, row.sign_count)
        count = self._ceremony.verify_assertion(credential, challenge, stored)
        with self._engine.begin() as db:
            db.execute(
                update(console_passkeys)
                .where(console_passkeys.c.credential_id == credential_id)
                .values(sign_count=count, last_used_at=iso(self._clock.now()))
            )

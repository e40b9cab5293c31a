"""The owner's passkeys (WebAuthn, verified by ``py_webauthn``): register, then sign in.

The relying party (``RelyingParty.for_url``) is the gateway's public URL when its host is a
name (``localhost`` or a real domain): its host is the RP ID, its origin the one origin an
assertion may come from. It is never an IP address: a console served at ``127.0.0.1`` (or
``[::1]``) has ``localhost`` on the same port as its RP, and asks the owner to open it there
for passkeys; one served at any other IP address has no passkeys (give it a real domain with
``--public-url``). Attestation is ``none`` (the owner's own device; nothing is gained from a
vendor certificate here). Only the credential id, its COSE public key and its signature
counter are kept (``console_passkeys``); a counter that goes backwards (a cloned
authenticator) is refused, as ``py_webauthn`` checks.

Registering is an act that loosens: ``verify_registration`` checks the ceremony and answers
what to keep, which the owner's delay holds (``ordergate.gateway.desk.DelayedActs``) until
``keep`` stores it; until then the passkey signs nobody in. ``revoke`` removes one at once.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine, delete, insert, select, update
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from ordergate.core import Clock
from ordergate.gateway.console._tables import console_passkeys
from ordergate.store import iso

__all__ = ["PasskeyError", "Passkeys", "RelyingParty"]

_USER_ID = b"ordergate-owner"
_MAX_CREDENTIAL = 16_384


class PasskeyError(Exception):
    """A passkey ceremony that did not verify (the sentence names what failed)."""


@dataclass(frozen=True, slots=True)
class RelyingParty:
    rp_id: str
    origin: str
    name: str = "ordergate"

    @classmethod
    def for_url(cls, public_url: str) -> RelyingParty | None:
        """The relying party of a console at ``public_url``: its host when that is a name;
        ``localhost`` (same scheme and port) for a loopback IP; ``None`` (no passkeys) for
        any other IP address."""
        parts = urlsplit(public_url)
        host = (parts.hostname or "").lower()
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            if not host:
                return None
            return cls(rp_id=host, origin=f"{parts.scheme}://{parts.netloc}".lower())
        if not address.is_loopback:
            return None
        port = f":{parts.port}" if parts.port is not None else ""
        return cls(rp_id="localhost", origin=f"{parts.scheme}://localhost{port}".lower())


class Passkeys:
    def __init__(self, engine: Engine, party: RelyingParty | None, *, clock: Clock) -> None:
        self._engine = engine
        self._party_or_none = party
        self._clock = clock

    def any(self) -> bool:
        with self._engine.connect() as db:
            return db.execute(select(console_passkeys.c.credential_id).limit(1)).first() is not None

    @property
    def party(self) -> RelyingParty | None:
        """The relying party; ``None`` when the console is served at an IP address that is
        not loopback (no passkeys then)."""
        return self._party_or_none

    @property
    def _party(self) -> RelyingParty:
        if self._party_or_none is None:
            raise PasskeyError(
                "this console is served at an IP address, which is never a passkey's relying "
                "party: give the gateway a domain name (--public-url) to use passkeys"
            )
        return self._party_or_none

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

    def registration_options(self) -> tuple[str, str]:
        """The options JSON for ``navigator.credentials.create`` and its challenge."""
        with self._engine.connect() as db:
            known = list(db.execute(select(console_passkeys.c.credential_id)).scalars())
        options = generate_registration_options(
            rp_id=self._party.rp_id,
            rp_name=self._party.name,
            user_name="owner",
            user_id=_USER_ID,
            user_display_name="ordergate owner",
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in known
            ],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.PREFERRED,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
        )
        return options_to_json(options), bytes_to_base64url(options.challenge)

    def verify_registration(self, credential: str, challenge: str, *, label: str) -> dict[str, Any]:
        """Verify a registration response against ``challenge``: what ``keep`` stores once
        the owner's delay has passed (no secret: an id, a public key, a counter, a label).
        Raises ``PasskeyError`` when it does not verify."""
        _bounded(credential)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=base64url_to_bytes(challenge),
                expected_rp_id=self._party.rp_id,
                expected_origin=self._party.origin,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as error:
            raise PasskeyError(f"the passkey registration did not verify ({error})") from None
        return {
            "credential_id": bytes_to_base64url(verified.credential_id),
            "public_key": bytes_to_base64url(verified.credential_public_key),
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
        with self._engine.connect() as db:
            known = list(db.execute(select(console_passkeys.c.credential_id)).scalars())
        options = generate_authentication_options(
            rp_id=self._party.rp_id,
            allow_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in known
            ],
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        return options_to_json(options), bytes_to_base64url(options.challenge)

    def authenticate(self, credential: str, challenge: str) -> None:
        """Verify an assertion against ``challenge`` and a registered passkey; its counter
        moves on. Raises ``PasskeyError`` otherwise."""
        _bounded(credential)
        try:
            claimed = json.loads(credential)
            credential_id = str(claimed["rawId"])
        except (ValueError, KeyError, TypeError):
            raise PasskeyError("the assertion is not a WebAuthn credential") from None
        with self._engine.connect() as db:
            row = db.execute(
                select(console_passkeys).where(console_passkeys.c.credential_id == credential_id)
            ).first()
        if row is None:
            raise PasskeyError("that passkey is not registered here")
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=base64url_to_bytes(challenge),
                expected_rp_id=self._party.rp_id,
                expected_origin=self._party.origin,
                credential_public_key=row.public_key,
                credential_current_sign_count=row.sign_count,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as error:
            raise PasskeyError(f"the passkey assertion did not verify ({error})") from None
        with self._engine.begin() as db:
            db.execute(
                update(console_passkeys)
                .where(console_passkeys.c.credential_id == credential_id)
                .values(sign_count=verified.new_sign_count, last_used_at=iso(self._clock.now()))
            )


def _bounded(credential: str) -> None:
    if len(credential) > _MAX_CREDENTIAL:
        raise PasskeyError("the credential is too large")

"""The WebAuthn ceremony (W3C Web Authentication Level 3; ``py_webauthn`` verifies it),
parametrised by whose credential it is (``Holder``) and where it is kept (the caller's store).

The relying party (``RelyingParty.for_url``) is the gateway's public URL when its host is a
name (``localhost`` or a real domain): its host is the RP ID, its origin the one origin an
assertion may come from. It is never an IP address: a gateway served at ``127.0.0.1`` (or
``[::1]``) has ``localhost`` on the same port as its RP; one served at any other IP address
has no passkeys (give it a real domain with ``--public-url``). Attestation is ``none`` (a
person's own device; nothing is gained from a vendor certificate here). A credential is kept
as its id, its COSE public key and its signature counter (``StoredPasskey``): no secret. A
counter that goes backwards (a cloned authenticator) is refused, as ``py_webauthn`` checks.
User verification is required in both ceremonies.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

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

__all__ = [
    "Ceremony",
    "Holder",
    "PasskeyError",
    "RelyingParty",
    "StoredPasskey",
    "claimed_credential",
]

_MAX_CREDENTIAL = 16_384
_FAILED = (WebAuthnException, ValueError, KeyError, TypeError)


class PasskeyError(Exception):
    """A passkey ceremony that did not verify (the sentence names what failed)."""


@dataclass(frozen=True, slots=True)
class RelyingParty:
    rp_id: str
    origin: str
    name: str = "ordergate"

    @classmethod
    def for_url(cls, public_url: str) -> RelyingParty | None:
        """The relying party of a gateway at ``public_url``: its host when that is a name;
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


@dataclass(frozen=True, slots=True)
class Holder:
    """Whose credential a registration makes: the WebAuthn user handle and names."""

    user_id: bytes
    name: str
    display_name: str
    resident: ResidentKeyRequirement = ResidentKeyRequirement.PREFERRED
    """``REQUIRED`` where sign-in finds the credential with no name typed (a person's)."""


@dataclass(frozen=True, slots=True)
class StoredPasskey:
    """A verified credential as kept: its id (base64url), COSE public key and counter."""

    credential_id: str
    public_key: bytes
    sign_count: int


def claimed_credential(credential: str) -> str:
    """The credential id (base64url) an assertion or registration response claims, before
    anything is verified. Raises ``PasskeyError`` for a response too large or not WebAuthn."""
    if len(credential) > _MAX_CREDENTIAL:
        raise PasskeyError("the credential is too large")
    try:
        claimed = json.loads(credential)
        return str(claimed["rawId"])
    except (ValueError, KeyError, TypeError):
        raise PasskeyError("the assertion is not a WebAuthn credential") from None


class Ceremony:
    """Both ceremonies at one relying party (``None``: served at an IP address, no passkeys)."""

    def __init__(self, party: RelyingParty | None) -> None:
        self._party_or_none = party

    @property
    def party(self) -> RelyingParty | None:
        return self._party_or_none

    @property
    def _party(self) -> RelyingParty:
        if self._party_or_none is None:
            raise PasskeyError(
                "this gateway is served at an IP address, which is never a passkey's relying "
                "party: give the gateway a domain name (--public-url) to use passkeys"
            )
        return self._party_or_none

    def registration_options(self, holder: Holder, known: Sequence[str]) -> tuple[str, str]:
        """The options JSON for ``navigator.credentials.create`` and its challenge; ``known``
        (credential ids) are excluded."""
        options = generate_registration_options(
            rp_id=self._party.rp_id,
            rp_name=self._party.name,
            user_name=holder.name,
            user_id=holder.user_id,
            user_display_name=holder.display_name,
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in known
            ],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=holder.resident,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
        )
        return options_to_json(options), bytes_to_base64url(options.challenge)

    def verify_registration(self, credential: str, challenge: str) -> StoredPasskey:
        """Verify a registration response against ``challenge``: what to keep. Raises
        ``PasskeyError`` when it does not verify."""
        claimed_credential(credential)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=base64url_to_bytes(challenge),
                expected_rp_id=self._party.rp_id,
                expected_origin=self._party.origin,
                require_user_verification=True,
            )
        except _FAILED as error:
            raise PasskeyError(f"the passkey registration did not verify ({error})") from None
        return StoredPasskey(
            bytes_to_base64url(verified.credential_id),
            verified.credential_public_key,
            verified.sign_count,
        )

    def authentication_options(self, allowed: Sequence[str]) -> tuple[str, str]:
        """The options JSON for ``navigator.credentials.get`` and its challenge; an empty
        ``allowed`` lets the authenticator offer its discoverable credentials for this RP."""
        options = generate_authentication_options(
            rp_id=self._party.rp_id,
            allow_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in allowed
            ],
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        return options_to_json(options), bytes_to_base64url(options.challenge)

    def verify_assertion(self, credential: str, challenge: str, stored: StoredPasskey) -> int:
        """Verify an assertion against ``challenge`` and ``stored`` (the credential it
        claims, found by the caller): its new signature counter. Raises ``PasskeyError``."""
        claimed_credential(credential)
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=base64url_to_bytes(challenge),
                expected_rp_id=self._party.rp_id,
                expected_origin=self._party.origin,
                credential_public_key=stored.public_key,
                credential_current_sign_count=stored.sign_count,
                require_user_verification=True,
            )
        except _FAILED as error:
            raise PasskeyError(f"the passkey assertion did not verify ({error})") from None
        return int(verified.new_sign_count)

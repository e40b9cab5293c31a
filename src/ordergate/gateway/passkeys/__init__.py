"""WebAuthn ceremonies (W3C Web Authentication Level 3, verified by ``py_webauthn``), whoever
holds the credential: the operator's passkeys on the console (``gateway.console``) and a
person's passkey on their own connection (``gateway.custody``) are one ceremony over two
stores.
"""

from ordergate.gateway.passkeys._ceremony import (
    Ceremony,
    Holder,
    PasskeyError,
    RelyingParty,
    StoredPasskey,
    claimed_credential,
)

__all__ = [
    "Ceremony",
    "Holder",
    "PasskeyError",
    "RelyingParty",
    "StoredPasskey",
    "claimed_credential",
]

"""RFC 8292 — Voluntary Application Server Identification (VAPID) for Web Push: the rail's key.

The rail has one P-256 key pair for every push it sends, generated once and kept in the
gateway's database (``push_keys``, gateway migration 0038), so every replica signs with the
same key and a subscription made against its public key (a browser's
``applicationServerKey``) keeps working. The public key is stored in the clear (base64url of
the uncompressed point, as browsers take it); the private key only sealed, under a data key of
its own wrapped by the key provider's key-encryption key (``ordergate.gateway.keys``, like a
connection's session), and it is never logged or shown (``VapidKey``'s repr).

``authorization`` is the ``Authorization: vapid t=<JWT>, k=<public key>`` header (RFC 8292
§3) for one push service: an ES256 JWT (``py_vapid``, which ``pywebpush`` brings) whose
``aud`` is the origin of the subscription's endpoint, ``exp`` at most 24 hours ahead (§2: this
rail's 12) and ``sub`` the rail's contact (a ``mailto:`` or ``https:`` URI).
"""

from __future__ import annotations

import base64
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from sqlalchemy import Engine, select, update
from sqlalchemy.exc import IntegrityError

from ordergate.gateway._schema import push_keys
from ordergate.gateway.keys import KeyProvider, open_envelope, rewrapped, seal_envelope
from ordergate.store import iso, write_transaction

__all__ = ["TOKEN_LIFETIME", "VapidKey", "rail_vapid_key", "rewrap_vapid_key", "vapid_kek_of"]

TOKEN_LIFETIME = timedelta(hours=12)
_ROW = "vapid"
_AAD = b"push-vapid:" + _ROW.encode("ascii")


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def origin_of(endpoint: str) -> str:
    """The origin of ``endpoint`` (scheme, host and any port): a VAPID token's ``aud``."""
    parts = urlsplit(endpoint)
    return f"{parts.scheme}://{parts.netloc}"


class VapidKey:
    """The rail's VAPID key pair: ``public_key`` (base64url, uncompressed P-256 point) and
    the private key, which never leaves this object."""

    def __init__(self, private_key: ec.EllipticCurvePrivateKey) -> None:
        self._signer = Vapid02(private_key)
        point = private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public_key = _b64(point)

    def __repr__(self) -> str:
        return f"VapidKey(public_key={self.public_key!r}, <private>)"

    def authorization(self, endpoint: str, *, subject: str, now: datetime) -> str:
        """The ``Authorization`` header value for a push to ``endpoint``. ``ValueError``
        when ``subject`` is not a ``mailto:`` or ``https:`` URI or the endpoint has no
        origin a token can name."""
        claims = {
            "aud": origin_of(endpoint),
            "exp": int((now + TOKEN_LIFETIME).timestamp()),
            "sub": subject,
        }
        try:
            header: str = self._signer.sign(claims)["Authorization"]
        except Exception as error:  # py_vapid's VapidException names the bad claim
            raise ValueError(f"a VAPID token cannot be made: {type(error).__name__}") from None
        return header


def _private_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_numbers().private_value.to_bytes(32, "big")


def _from_bytes(raw: bytes) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())


def rail_vapid_key(engine: Engine, keys: KeyProvider, *, now: datetime) -> VapidKey:
    """The rail's VAPID key, made and stored (sealed) the first time it is asked for; a
    replica that made one a moment before wins, and every replica then reads that one.
    Raises ``KeyProviderError`` / ``SealError`` when the stored key does not open."""
    found = _read(engine, keys)
    if found is not None:
        return found
    private_key = ec.generate_private_key(ec.SECP256R1())
    envelope = seal_envelope(keys, _private_bytes(private_key), aad=_AAD)
    made = VapidKey(private_key)
    try:
        with write_transaction(engine) as tx:
            tx.execute(
                push_keys.insert().values(
                    id=_ROW,
                    public_key=made.public_key,
                    private_sealed=envelope.sealed,
                    data_key_wrapped=envelope.data_key_wrapped,
                    kek_id=envelope.kek_id,
                    created_at=iso(now),
                )
            )
    except IntegrityError:
        again = _read(engine, keys)
        if again is None:  # pragma: no cover - the row that refused this one is there
            raise
        return again
    return made


def _read(engine: Engine, keys: KeyProvider) -> VapidKey | None:
    with engine.connect() as db:
        row = db.execute(select(push_keys).where(push_keys.c.id == _ROW)).first()
    if row is None:
        return None
    raw, _ = open_envelope(
        keys,
        row.private_sealed,
        data_key_wrapped=row.data_key_wrapped,
        kek_id=row.kek_id,
        aad=_AAD,
    )
    return VapidKey(_from_bytes(raw))


def rewrap_vapid_key(engine: Engine, keys: KeyProvider, key_id: str) -> str | None:
    """Move the VAPID key's wrapped data key under the current KEK ``key_id`` (a rotation,
    inside the provider: the private key is never opened). The KEK it is under now, or
    ``None`` when the rail has no VAPID key."""
    with write_transaction(engine) as tx:
        row = tx.execute(
            select(push_keys.c.data_key_wrapped, push_keys.c.kek_id)
            .where(push_keys.c.id == _ROW)
            .with_for_update()
        ).first()
        if row is None:
            return None
        if row.kek_id == key_id:
            return key_id
        new_id, blob = rewrapped(keys, data_key_wrapped=row.data_key_wrapped, kek_id=row.kek_id)
        tx.execute(
            update(push_keys)
            .where(push_keys.c.id == _ROW)
            .values(data_key_wrapped=blob, kek_id=new_id)
        )
    return new_id


def vapid_kek_of(engine: Engine) -> str | None:
    """The KEK the VAPID key's data key is wrapped by (``None``: the rail has none)."""
    with engine.connect() as db:
        found = db.execute(
            select(push_keys.c.kek_id).where(push_keys.c.id == _ROW)
        ).scalar_one_or_none()
    return None if found is None else str(found)

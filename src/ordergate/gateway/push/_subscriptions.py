"""A person's Web Push subscriptions (RFC 8030 §4; the Push API's ``PushSubscription``).

A subscription is what the person's browser hands over when it subscribes against the rail's
VAPID key: the push service's endpoint URL, the browser's P-256 public key (``p256dh``) and its
16-byte authentication secret (``auth``, RFC 8291 §3.2). Whoever holds all three can push to
that phone, so each is stored only sealed under the connection's own data key (associated
data ``push-sub:<connection id>:<id>``): erasing the connection shreds them, and its erasure
drops the rows. Only the endpoint's SHA-256 is in the clear, so registering the same
subscription again keeps one row. A connection keeps at most ``MAX_PER_CONNECTION``.

The endpoint must be ``https`` (``allow_private``: also ``http``, for a push service on the
operator's own network or a test's loopback), with a host, no user part or fragment, at most
``MAX_ENDPOINT`` characters; ``p256dh`` a point on P-256, ``auth`` 16 bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Engine, delete, func, select

from ordergate.core import Clock
from ordergate.gateway._schema import connections, push_subscriptions
from ordergate.gateway._seal import SealError
from ordergate.gateway.keys import (
    KeyProvider,
    KeyProviderError,
    open_envelope,
    seal_envelope,
    unwrapped_data_key,
)
from ordergate.gateway.oauth._records import ConnectionKind, ConnectionState
from ordergate.store import iso, write_transaction

__all__ = [
    "MAX_ENDPOINT",
    "MAX_PER_CONNECTION",
    "PushRefused",
    "PushSubscriptions",
    "Subscription",
    "parse_subscription",
]

MAX_PER_CONNECTION = 5
MAX_ENDPOINT = 2000


class PushRefused(Exception):
    """A subscription refused: ``status`` (HTTP), ``code`` (stable), ``field`` (the bad one)."""

    def __init__(self, status: int, code: str, message: str, *, field: str | None = None) -> None:
        self.status = status
        self.code = code
        self.field = field
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Subscription:
    """One browser's subscription; its repr shows none of it."""

    endpoint: str
    p256dh: str
    auth: str

    def __repr__(self) -> str:
        return "Subscription(<sealed>)"

    def as_info(self) -> dict[str, Any]:
        """The subscription as the Push API's ``toJSON()`` has it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _key(keys: object, name: str, size: int) -> str:
    field = f"subscription.keys.{name}"
    value = keys.get(name) if isinstance(keys, dict) else None
    if not isinstance(value, str) or len(value) > 200:
        raise PushRefused(
            400, "invalid_subscription", f"{name} must be base64url text.", field=field
        )
    try:
        raw = _unb64(value)
    except (binascii.Error, ValueError):
        raise PushRefused(
            400, "invalid_subscription", f"{name} must be base64url text.", field=field
        ) from None
    if len(raw) != size:
        raise PushRefused(400, "invalid_subscription", f"{name} has the wrong length.", field=field)
    if name == "p256dh":
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
        except ValueError:
            raise PushRefused(
                400, "invalid_subscription", "p256dh is not a P-256 public key.", field=field
            ) from None
    return value.rstrip("=")


def parse_subscription(value: object, *, allow_private: bool = False) -> Subscription:
    """The subscription ``value`` (a ``PushSubscription.toJSON()``) describes; ``PushRefused``
    naming the bad field otherwise."""
    if not isinstance(value, dict):
        raise PushRefused(
            400, "invalid_subscription", "subscription must be an object.", field="subscription"
        )
    endpoint = value.get("endpoint")
    field = "subscription.endpoint"
    if not isinstance(endpoint, str) or not 0 < len(endpoint) <= MAX_ENDPOINT:
        raise PushRefused(400, "invalid_subscription", "endpoint must be a URL.", field=field)
    parts = urlsplit(endpoint)
    schemes = ("https", "http") if allow_private else ("https",)
    if (
        parts.scheme not in schemes
        or not parts.hostname
        or parts.username is not None
        or parts.password is not None
        or parts.fragment
    ):
        raise PushRefused(
            400, "invalid_subscription", "endpoint must be an https URL of a push service.",
            field=field,
        )  # fmt: skip
    keys = value.get("keys")
    return Subscription(endpoint, _key(keys, "p256dh", 65), _key(keys, "auth", 16))


def _aad(connection_id: str, subscription_id: str) -> bytes:
    return f"push-sub:{connection_id}:{subscription_id}".encode("ascii")


class PushSubscriptions:
    """The subscriptions of each person's connection (blocking calls)."""

    def __init__(self, engine: Engine, *, keys: KeyProvider, clock: Clock) -> None:
        self._engine = engine
        self._keys = keys
        self._clock = clock

    def __repr__(self) -> str:
        return "PushSubscriptions(<sealed>)"

    def add(self, connection_id: str, subscription: Subscription) -> tuple[str, bool]:
        """Keep ``subscription`` for the live sealed connection ``connection_id``: its id,
        and whether it is new (the same endpoint again keeps the first row). ``PushRefused``
        for a connection that cannot keep one, or one that has ``MAX_PER_CONNECTION``."""
        wanted = hashlib.sha256(subscription.endpoint.encode("utf-8")).hexdigest()
        table = push_subscriptions.c
        with write_transaction(self._engine) as tx:
            row = tx.execute(
                select(connections.c.kind, connections.c.state, connections.c.data_key_wrapped,
                       connections.c.kek_id)
                .where(connections.c.id == connection_id)
                .with_for_update()
            ).first()  # fmt: skip
            if (
                row is None
                or row.kind != ConnectionKind.SEALED
                or row.state != ConnectionState.LIVE
                or row.data_key_wrapped is None
                or row.kek_id is None
            ):
                raise PushRefused(
                    409, "connection_not_live", "This connection cannot keep a subscription."
                )
            kept = tx.execute(
                select(table.id).where(
                    table.connection_id == connection_id, table.endpoint_sha256 == wanted
                )
            ).scalar_one_or_none()
            if kept is not None:
                return str(kept), False
            count = tx.execute(
                select(func.count()).where(table.connection_id == connection_id)
            ).scalar_one()
            if count >= MAX_PER_CONNECTION:
                raise PushRefused(
                    409, "too_many_subscriptions",
                    f"A connection keeps at most {MAX_PER_CONNECTION} subscriptions.",
                    field="subscription",
                )  # fmt: skip
            subscription_id = secrets.token_hex(16)
            data_key = unwrapped_data_key(
                self._keys, data_key_wrapped=row.data_key_wrapped, kek_id=row.kek_id
            )
            sealed = seal_envelope(
                self._keys,
                json.dumps(subscription.as_info(), separators=(",", ":")).encode("utf-8"),
                aad=_aad(connection_id, subscription_id),
                data_key=data_key,
                wrapped=(row.kek_id, row.data_key_wrapped),
            ).sealed
            tx.execute(
                push_subscriptions.insert().values(
                    id=subscription_id,
                    connection_id=connection_id,
                    endpoint_sha256=wanted,
                    sealed=sealed,
                    created_at=iso(self._clock.now()),
                )
            )
        return subscription_id, True

    def of(self, connection_id: str) -> list[tuple[str, Subscription]]:
        """The subscriptions of ``connection_id`` that open (id, subscription); those of a
        connection no longer live, or that no longer open, are dropped."""
        with self._engine.connect() as db:
            owner = db.execute(
                select(connections.c.state, connections.c.data_key_wrapped, connections.c.kek_id)
                .where(connections.c.id == connection_id)
            ).first()  # fmt: skip
            rows = db.execute(
                select(push_subscriptions.c.id, push_subscriptions.c.sealed).where(
                    push_subscriptions.c.connection_id == connection_id
                )
            ).all()
        found: list[tuple[str, Subscription]] = []
        unopened: list[str] = []
        for row in rows:
            opened = self._open(owner, connection_id, row.id, row.sealed)
            if opened is None:
                unopened.append(row.id)
            else:
                found.append((row.id, opened))
        for subscription_id in unopened:
            self.drop(subscription_id)
        return found

    def _open(
        self, owner: Any, connection_id: str, subscription_id: str, sealed: str
    ) -> Subscription | None:
        if (
            owner is None
            or owner.state != ConnectionState.LIVE
            or owner.data_key_wrapped is None
            or owner.kek_id is None
        ):
            return None
        try:
            plain, _ = open_envelope(
                self._keys,
                sealed,
                data_key_wrapped=owner.data_key_wrapped,
                kek_id=owner.kek_id,
                aad=_aad(connection_id, subscription_id),
            )
            info = json.loads(plain)
            return Subscription(info["endpoint"], info["keys"]["p256dh"], info["keys"]["auth"])
        except (KeyProviderError, SealError, ValueError, KeyError, TypeError):
            return None

    def drop(self, subscription_id: str) -> bool:
        """Forget a subscription (the push service said it is gone). Whether it was kept."""
        with write_transaction(self._engine) as tx:
            dropped = tx.execute(
                delete(push_subscriptions).where(push_subscriptions.c.id == subscription_id)
            )
        return dropped.rowcount == 1

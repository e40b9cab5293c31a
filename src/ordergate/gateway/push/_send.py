"""RFC 8030 — Generic Event Delivery Using HTTP Push, with RFC 8291 — Message Encryption for
Web Push: one message to one subscription.

The payload is encrypted for the subscription (``aes128gcm``, RFC 8188 as RFC 8291 profiles
it: an ephemeral P-256 key agreed with the browser's ``p256dh``, mixed with its ``auth``
secret; ``pywebpush``'s ``WebPusher.encode``) and POSTed to the endpoint with ``TTL``,
``Urgency`` (RFC 8030 §5.2, §5.3) and the rail's VAPID ``Authorization`` (RFC 8292), over the
gateway's own HTTP client: no redirect followed, every send bounded by ``timeout_s``. Before it
connects, the endpoint's host must resolve to public addresses only (``is_public_address``),
unless the operator allows private ones (a push service on their own network, a test's
loopback).

The answer is a ``Delivery``: ``delivered`` (2xx), ``gone`` (404 or 410: the subscription has
expired or was withdrawn, RFC 8030 §7.3 — the caller drops it) or ``failed`` (anything else: a
refusal, no answer in time, an address refused), with the HTTP status when there was one.
Nothing raises: a push is a courtesy, never a step of the order path.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

import anyio
import httpx2
from pywebpush import WebPusher, WebPushException

from ordergate.core import Clock
from ordergate.gateway.push._subscriptions import Subscription
from ordergate.gateway.push._vapid import VapidKey
from ordergate.oauth import is_public_address

__all__ = ["Delivered", "Delivery", "PushSender"]

logger = logging.getLogger(__name__)
_TIMEOUT_S = 5.0
_GONE = frozenset({404, 410})

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]


class Delivered(StrEnum):
    DELIVERED = "delivered"
    GONE = "gone"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Delivery:
    outcome: Delivered
    status: int | None = None
    reason: str | None = None
    """Why it failed, as a fixed word (``timeout``, ``transport``, ``address``, ``status``)."""


async def _resolve(host: str, port: int) -> Sequence[str]:
    infos = await anyio.getaddrinfo(host, port)
    return [str(info[4][0]) for info in infos]


class PushSender:
    """Sends pushes signed with ``vapid`` under the contact ``subject``."""

    def __init__(
        self,
        *,
        vapid: VapidKey,
        subject: str,
        clock: Clock,
        timeout_s: float = _TIMEOUT_S,
        allow_private: bool = False,
        resolve: Resolver | None = None,
    ) -> None:
        self._vapid = vapid
        self._subject = subject
        self._clock = clock
        self._timeout_s = timeout_s
        self._allow_private = allow_private
        self._resolve = resolve or _resolve

    def __repr__(self) -> str:
        return "PushSender(<vapid>)"

    async def send(
        self, subscription: Subscription, payload: bytes, *, ttl_s: int, urgency: str = "high"
    ) -> Delivery:
        """Encrypt ``payload`` for ``subscription`` and hand it to its push service."""
        try:
            with anyio.fail_after(self._timeout_s):
                return await self._send(subscription, payload, ttl_s=ttl_s, urgency=urgency)
        except TimeoutError:
            return Delivery(Delivered.FAILED, reason="timeout")
        except (httpx2.HTTPError, OSError) as error:
            logger.info("a push was not delivered: %s", type(error).__name__)
            return Delivery(Delivered.FAILED, reason="transport")
        except (ValueError, WebPushException) as error:  # no token or cipher takes it
            logger.info("a push could not be made: %s", type(error).__name__)
            return Delivery(Delivered.FAILED, reason="subscription")

    async def _send(
        self, subscription: Subscription, payload: bytes, *, ttl_s: int, urgency: str
    ) -> Delivery:
        endpoint = subscription.endpoint
        if not self._allow_private and not await self._public(endpoint):
            return Delivery(Delivered.FAILED, reason="address")
        body = WebPusher(subscription.as_info()).encode(payload, content_encoding="aes128gcm")
        headers = {
            "TTL": str(ttl_s),
            "Urgency": urgency,
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "Authorization": self._vapid.authorization(
                endpoint, subject=self._subject, now=self._clock.now()
            ),
        }
        async with httpx2.AsyncClient(timeout=self._timeout_s, follow_redirects=False) as http:
            response = await http.post(endpoint, content=body["body"], headers=headers)
        if 200 <= response.status_code < 300:
            return Delivery(Delivered.DELIVERED, response.status_code)
        if response.status_code in _GONE:
            return Delivery(Delivered.GONE, response.status_code)
        return Delivery(Delivered.FAILED, response.status_code, reason="status")

    async def _public(self, endpoint: str) -> bool:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        try:
            addresses = await self._resolve(host, parts.port or 443)
        except OSError:
            return False
        return bool(addresses) and all(is_public_address(address) for address in addresses)

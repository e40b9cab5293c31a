"""Web Push to a person's phone on a hosted rail: an order held for them is announced there.

The rail's VAPID key (``_vapid``, RFC 8292), each person's subscriptions sealed under their
connection's data key (``_subscriptions``), one encrypted push to one subscription
(``_send``, RFC 8030 with RFC 8291's ``aes128gcm``), and the guard's notifier that sends a held
order's push in the background, never in the order's way (``_notifier``); the person's routes
(``_routes``) and the whole assembled for a rail (``_rail``).
"""

from ordergate.gateway.push._notifier import PushNotifier, approval_push
from ordergate.gateway.push._rail import rail_push
from ordergate.gateway.push._routes import push_routes
from ordergate.gateway.push._send import Delivered, Delivery, PushSender
from ordergate.gateway.push._subscriptions import (
    MAX_PER_CONNECTION,
    PushRefused,
    PushSubscriptions,
    Subscription,
    parse_subscription,
)
from ordergate.gateway.push._vapid import VapidKey, rail_vapid_key, rewrap_vapid_key

__all__ = [
    "MAX_PER_CONNECTION",
    "Delivered",
    "Delivery",
    "PushNotifier",
    "PushRefused",
    "PushSender",
    "PushSubscriptions",
    "Subscription",
    "VapidKey",
    "approval_push",
    "parse_subscription",
    "push_routes",
    "rail_push",
    "rail_vapid_key",
    "rewrap_vapid_key",
]

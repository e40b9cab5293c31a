"""A hosted rail's person turns on their console's notifications in real Chromium: the console
registers its service worker with their permission, and a held order's push, as the rail sent
it, shows on the device as a notification that opens the order's approval page.

Chromium subscribes a page to push through Google's push service (FCM), which this test's
machine cannot reach, and offers no setting to subscribe it at another: ``PushManager.
subscribe`` never answers here. So the person's device is subscribed with a push service on
loopback instead (``push_testkit``: it checks the rail's VAPID token and decrypts the RFC 8291
payload, as FCM and the browser do), and the payload it decrypted is handed to the worker as
the browser would hand it, through the DevTools protocol (``ServiceWorker.deliverPushMessage``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium_testkit import chromium_page, expect, sync_playwright
from custody_kit import Custodian, custodian
from person_browser_kit import connect_in, console_sign_in
from person_console_kit import HELD, localhost, place_held
from push_testkit import PushService, eventually, push_service

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.getRegistration();
  if (!registration) return [];
  return (await registration.getNotifications()).map(
    (n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
}"""


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(
        tmp_path, monkeypatch, policy=HELD, localhost=True, push=True, venue_users=("alice",)
    ) as served:
        yield served


@pytest.fixture
def phone(rail: Custodian) -> Iterator[PushService]:
    with push_service(rail.clock.now) as served:
        yield served


def _notifications(page: Any) -> list[dict[str, Any]]:
    shown: list[dict[str, Any]] = page.evaluate(NOTIFICATIONS)
    return shown


@pytest.mark.req("gateway.push.service-worker")
@pytest.mark.req("console.browser")
def test_a_held_orders_push_shows_on_the_persons_device_and_opens_its_approval_page(
    rail: Custodian, phone: PushService, tmp_path: Path
) -> None:
    origin = localhost(rail)
    with sync_playwright() as p, chromium_page(p, tmp_path / "alice") as page:
        token, secret = connect_in(rail, page, "alice")
        connection = console_sign_in(rail, page)
        rail.connection_ids.append(connection)
        rail.secrets.append(secret)
        subscribed = rail.person_post(
            "/person/push/subscriptions", 0, {"subscription": phone.subscribe(rail.push_key())}
        )
        assert subscribed.status_code == 201, subscribed.text

        # The person turns the console's notifications on for this device.
        page.context.grant_permissions(["notifications"], origin=origin)
        devtools = page.context.new_cdp_session(page)
        registrations: list[dict[str, Any]] = []
        devtools.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda event: registrations.extend(event["registrations"]),
        )
        devtools.send("ServiceWorker.enable")
        page.goto(f"{origin}/console/mine", wait_until="load")
        page.click("#push-enable")
        expect(page.locator("#push-status")).to_have_text("This device now shows your held orders.")
        [enabled] = _notifications(page)
        assert enabled["title"] == "Held orders show on this device"
        eventually(lambda: any(r["scopeURL"] == f"{origin}/console/" for r in registrations))
        [worker] = {
            r["registrationId"]
            for r in registrations
            if r["scopeURL"] == f"{origin}/console/" and not r["isDeleted"]
        }

        # An order is held; the rail pushes it to the device's push service.
        held = place_held(rail.url, token)
        eventually(lambda: len(phone.received) == 1)
        [payload] = phone.received
        assert payload["approval_id"] == held["approval_id"]

        # The browser hands the push to the worker, which shows it.
        message = json.dumps(payload)
        devtools.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": origin, "registrationId": worker, "data": message},
        )
        page_url = f"{origin}/console/mine/approvals/{held['approval_id']}"
        shown: list[dict[str, Any]] = []

        def notified() -> bool:
            shown[:] = [n for n in _notifications(page) if n["tag"] != "push-enabled"]
            return bool(shown)

        eventually(notified)
        [notification] = shown
        assert notification["title"] == "An order waits for your approval"
        assert notification["tag"] == f"approval-{held['approval_id']}"
        assert notification["data"] == {"url": page_url, "approval_id": held["approval_id"]}
        # Nothing of the order's terms is on the device.
        assert "SPY" not in json.dumps(notification)
        # Its link is the person's own approval page on their console.
        page.goto(notification["data"]["url"], wait_until="load")
        expect(page.locator("button[data-passkey=approve]")).to_have_count(1)

// The console's service worker. A held order the rail pushes to this device (Web Push: the
// browser checks and decrypts it) shows as a notification that opens the order's approval page
// on the person's own console. The payload carries ids, expiry and that page's link, never the
// order's terms; a link to any other origin is dropped.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function pageOf(message) {
  try {
    const url = new URL(String(message.url || ""), self.location.origin);
    return url.origin === self.location.origin ? url.href : null;
  } catch (_) {
    return null;
  }
}

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (_) {
    message = {};
  }
  // Every push shows something (a browser insists on it): an unknown one says only that the
  // console has news, and opens nothing.
  const held = message.event === "approval_pending" && typeof message.approval_id === "string";
  const title = held ? "An order waits for your approval" : "ordergate";
  const options = held
    ? {
        body: "Open it to approve or deny it" +
          (message.expires_at ? " before " + message.expires_at + "." : "."),
        tag: "approval-" + message.approval_id,
        data: { url: pageOf(message), approval_id: message.approval_id },
      }
    : { body: "Your console has news.", data: { url: null } };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data && event.notification.data.url;
  if (url) event.waitUntil(self.clients.openWindow(url));
});

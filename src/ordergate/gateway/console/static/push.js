// Held orders on this device: the person's console registers its service worker (push-sw.js,
// for the console's pages) with their permission to notify, and says so with a first
// notification; the worker then shows each held order the rail pushes here.
(function () {
  "use strict";
  const say = (text) => { const s = document.getElementById("push-status"); if (s) s.textContent = text; };
  function activated(registration) {
    if (registration.active) return Promise.resolve(registration);
    const worker = registration.installing || registration.waiting;
    return new Promise((resolve, reject) => {
      worker.addEventListener("statechange", () => {
        if (worker.state === "activated") resolve(registration);
        if (worker.state === "redundant") reject(new Error("the worker was not installed"));
      });
    });
  }
  async function enable(button) {
    if (!("serviceWorker" in navigator) || !("Notification" in window)) {
      say("This browser cannot show the console's notifications.");
      return;
    }
    if (await Notification.requestPermission() !== "granted") {
      say("Notifications are not allowed for the console on this device.");
      return;
    }
    const registration = await activated(await navigator.serviceWorker.register(
      button.dataset.worker, { scope: button.dataset.scope }));
    await registration.showNotification("Held orders show on this device", {
      body: "Each order of yours that waits for approval shows here and opens its page.",
      tag: "push-enabled",
    });
    say("This device now shows your held orders.");
  }
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("#push-enable");
    if (!button) return;
    event.preventDefault();
    enable(button).catch((error) => say("Notifications could not be turned on (" + error.name + ")."));
  });
})();

// The console's session key. The cookie is sent to every port of this host, so it alone
// opens nothing: the key is kept in this tab's sessionStorage (per origin: a page on another
// port never sees it) and sent as X-Console-Key on every request the console makes.
(function () {
  "use strict";
  const NAME = "ordergate-console-key";
  const HEADER = "X-Console-Key";
  const prefix = document.body.dataset.prefix;
  const key = () => sessionStorage.getItem(NAME);
  window.ordergateConsoleKey = key;
  // A refusal (4xx, 5xx) is a page too: show it. No page is kept in localStorage.
  htmx.config.responseHandling = [{ code: "204", swap: false }, { code: ".*", swap: true }];
  htmx.config.historyCacheSize = 0;
  document.addEventListener("htmx:configRequest", (event) => {
    const held = key();
    if (held) event.detail.headers[HEADER] = held;
  });
  let asked = false;
  function open() {
    const given = document.querySelector('meta[name="console-key"]');
    if (given) {
      sessionStorage.setItem(NAME, given.content);
      given.remove();
      window.location.replace(given.dataset.next);
      return;
    }
    if (!document.querySelector("[data-console-loader]")) return;
    // The page came without the key: ask once more with it, or sign in.
    if (key() && !asked) {
      asked = true;
      htmx.ajax("GET", window.location.pathname + window.location.search,
        { target: "body", swap: "innerHTML" });
    } else {
      window.location.replace(prefix + "/sign-in");
    }
  }
  document.addEventListener("htmx:afterSettle", open);
  open();
})();

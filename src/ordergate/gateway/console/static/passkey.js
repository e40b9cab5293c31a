// The console's passkey ceremonies (WebAuthn); the server verifies everything.
(function () {
  "use strict";
  const body = document.body;
  const prefix = body.dataset.prefix;
  const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const bytes = (text) => Uint8Array.from(
    atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const say = (text) => { const s = document.getElementById("passkey-status"); if (s) s.textContent = text; };
  async function post(path, payload) {
    // The page's own CSRF token: read now (a boosted page replaced the body's content).
    const csrf = document.querySelector("main[data-csrf]").dataset.csrf;
    const headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf };
    const key = window.ordergateConsoleKey && window.ordergateConsoleKey();
    if (key) headers["X-Console-Key"] = key;
    const response = await fetch(prefix + path, {
      method: "POST", credentials: "same-origin", headers: headers,
      body: JSON.stringify(payload),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || ("HTTP " + response.status));
    return answer;
  }
  function asJSON(credential) {
    const r = credential.response;
    const out = { id: credential.id, rawId: b64(credential.rawId), type: credential.type, response: {
      clientDataJSON: b64(r.clientDataJSON) }, clientExtensionResults: {} };
    if (r.attestationObject) out.response.attestationObject = b64(r.attestationObject);
    if (r.authenticatorData) out.response.authenticatorData = b64(r.authenticatorData);
    if (r.signature) out.response.signature = b64(r.signature);
    if (r.userHandle) out.response.userHandle = b64(r.userHandle);
    return out;
  }
  async function assertion(purpose, approvalId, base, extra) {
    const asked = Object.assign({ purpose: purpose }, extra || {});
    if (approvalId) asked.approval_id = approvalId;
    const options = await post((base || "") + "/passkey/options", asked);
    options.challenge = bytes(options.challenge);
    (options.allowCredentials || []).forEach((c) => { c.id = bytes(c.id); });
    return asJSON(await navigator.credentials.get({ publicKey: options }));
  }
  async function run(button) {
    const purpose = button.dataset.passkey;
    say("Waiting for the passkey…");
    if (purpose === "person_sign_in") {
      const options = await post("/person/options", {});
      options.challenge = bytes(options.challenge);
      (options.allowCredentials || []).forEach((c) => { c.id = bytes(c.id); });
      const made = asJSON(await navigator.credentials.get({ publicKey: options }));
      const answer = await post("/person/sign-in", made);
      sessionStorage.setItem("ordergate-console-key", answer.key);
      window.location = answer.next;
    } else if (purpose === "sign_in") {
      const answer = await post("/passkey/sign-in", await assertion("sign_in"));
      sessionStorage.setItem("ordergate-console-key", answer.key);
      window.location = answer.next;
    } else if (purpose === "approve") {
      const base = button.dataset.base || "";
      const answer = await post(base + "/approvals/" + button.dataset.approval + "/approve", await assertion("approve", button.dataset.approval, base));
      say("The order is " + answer.status + ".");
    } else if (purpose === "limits") {
      const base = button.dataset.base || "";
      const limit = { name: document.getElementById("limit_name").value,
        value: document.getElementById("limit_value").value };
      await post(base + "/limits", await assertion("limits", null, base, limit));
      say("Your limit is set."); window.location.reload();
    } else if (purpose === "disconnect") {
      const base = button.dataset.base || "";
      const answer = await post(base + "/disconnect", await assertion("disconnect", null, base));
      sessionStorage.removeItem("ordergate-console-key");
      say(answer.message + " " + answer.revoke_at_upstream);
    } else if (purpose === "register") {
      const code = document.getElementById("register_code").value;
      const options = await post("/passkey/register/options", { owner_code: code });
      options.challenge = bytes(options.challenge);
      options.user.id = bytes(options.user.id);
      (options.excludeCredentials || []).forEach((c) => { c.id = bytes(c.id); });
      const answer = await post("/passkey/register", asJSON(await navigator.credentials.create({ publicKey: options })));
      say(answer.message || "Registered."); window.location.reload();
    }
  }
  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-passkey]");
    if (button) run(button).catch((error) => say("Refused: " + error.message));
  });
})();

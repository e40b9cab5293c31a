"""Security and protocol requirements, each pinned by at least one test (``@pytest.mark.req``).

Each entry cites where the requirement comes from: an RFC, the MCP specification, the
reference capture of the live venue (``reference``), or docs/architecture.md (by section).
"""

from __future__ import annotations

REQUIREMENTS: dict[str, str] = {
    # OAuth 2.1 as observed on the live venue
    "oauth.challenge.resource-metadata": "RFC 9728 §5.1: 401 names the protected-resource metadata",
    "oauth.registration.shared-client-id": "reference: registration returns one shared public id",
    "oauth.pkce.s256-only": "RFC 7636 / OAuth 2.1 §4.1.1: S256 only; plain and missing refused",
    "oauth.code.single-use": "RFC 6749 §4.1.2: a code is single-use; replay revokes its tokens",
    "oauth.refresh.rotation": "OAuth 2.1 §4.3.1 and reference: refresh tokens rotate",
    "oauth.flow.public-client": "reference: public client, token_endpoint_auth_method none",
    # MCP streamable HTTP
    "mcp.http.post-only": "reference: GET on the endpoint answers 405",
    "mcp.http.framing": "MCP 2025-11-25 transports: JSON or one-shot SSE answers",
    "mcp.http.dns-rebinding": "MCP 2025-11-25 transports, security warning: validate Origin/Host",
    "mcp.session.issued-and-honoured": "MCP 2025-11-25 transports: Mcp-Session-Id; unknown → 404",
    "mcp.version.negotiation": "MCP lifecycle: 2025-06-18 and 2025-11-25 negotiated",
    "mcp.jsonrpc.protocol-errors": "JSON-RPC 2.0 §5.1: parse, invalid request, unknown method/tool",
    "mcp.tools.list.paginated": "MCP pagination: nextCursor until drained; forged cursor refused",
    "mcp.tools.schemas-exact": "reference: contract tools served with the captured schemas",
    "mcp.tools.output-valid": "MCP tools: structuredContent conforms to outputSchema",
    "mcp.tools.strict-arguments": "reference: additionalProperties false; nullable arrays",
    "mcp.tools.business-errors-are-results": "reference: business failures come as isError results",
    # The venue
    "sandbox.faults": "architecture, the sandbox venue: fault knobs for tests",
    "sandbox.determinism": "architecture, the sandbox venue: same seed, same calls, same results",
    "sandbox.orders.async-fills": "reference: orders go queued → confirmed → (partially_)filled",
    "sandbox.orders.rules": "reference: equity order rules, each refused naming its field",
    "sandbox.orders.ref-id-dedupe": "reference: place dedupes on ref_id; a non-UUID is refused",
    "sandbox.orders.cancel": "reference: cancel shows cancelled / partially_filled_rest_cancelled",
    "sandbox.orders.approval-setting": "reference: approval on → place_* returns data.approval",
    "sandbox.orders.after-hours-queue": "reference: after-hours market orders queue for the open",
    "sandbox.orders.time-in-force": "reference: time_in_force gfd (default) or gtc",
    "sandbox.sdk-client": "issue: the official MCP SDK client works against the venue",
    "sandbox.users": "issue 30 §5: each named user signs in and trades only their own accounts",
    # The typed client (issue 3)
    "client.tokens.file-0600-atomic": "issue 3 §1: token file written atomically, mode 0600",
    "client.tokens.single-flight-refresh": "issue 3 §1: one process refreshes under a lock",
    "client.oauth.state-checked": "RFC 6749 §10.12 and issue 3 §1: state checked on the answer",
    "client.secrets.never-shown": "issue 3 §3: no token in a repr, log, error message or output",
    "client.transport.fallback": "issue 3 §2: no MCP session → plain JSON-RPC POST per call",
    "client.crypto-rest.signature": "reference (Crypto Trading API): Ed25519 over api key + "
    "timestamp + path + method + body; the documented example signature reproduced",
    "client.crypto-rest.rate-limit": "reference (Crypto Trading API): 100 a minute, bursts of "
    "300, held by the client before it sends",
    "client.crypto-rest.key-secret": "issue 29 §1: the private key kept 0600, never shown",
    "sandbox.crypto-rest.verified": "issue 29 §2: the REST venue refuses an unknown key, a "
    "timestamp over 30 s old and a signature over other bytes (401), nothing done",
    "client.transport.both-framings": "MCP 2025-11-25 transports and issue 3 §2: JSON and SSE",
    "client.errors.business-failures-raise": "issue 3 §2: isError and refusals raise, never return",
    "client.requests.reject-inapplicable-fields": "issue 3 §3: cross-field rules, named field",
    "client.decimal-rules": "issue 3 §3: amounts by the Decimal rules; unparseable names the field",
    "client.coverage.every-tool-typed": "issue 3 §3: every reference tool has a typed method",
    # Tool discovery (issue 4 §3): capabilities, mapping, validation, crypto readiness
    "discovery.capabilities.by-name-and-schema": "issue 4 §3: resolved by name words + schema",
    "discovery.mapping.unmapped-required-fails": "issue 4 §3: unmapped required field raises",
    "discovery.validate.names-field": "issue 4 §3: local 2020-12 validation names the field",
    "discovery.readiness.exit-codes": "issue 4 §3: readiness exits 10 appeared, 11 disappeared",
    # Tool discovery (issue 4 §1–2): snapshots and drift
    "discovery.snapshot.sanity": "issue 4 §1: count > 0, names, object input schemas; else exit 2",
    "discovery.snapshot.no-token": "issue 4 §1, architecture, invariants: no token in a snapshot",
    "discovery.drift.classes": "issue 4 §2: every change classed breaking, additive or cosmetic",
    "discovery.drift.exit-codes": "issue 4 §2: drift exits 0 none, 1 drift (--fail-on breaking)",
    # The wall (issue 5 §1): the policy engine
    "policy.unknown-keys-refused": "issue 5 §1: an unknown policy key is an error naming it",
    "policy.bad-value-names-key": "issue 5 §1: a bad policy value is refused with key and reason",
    "policy.float-money-refused": "issue 5 §1, architecture, invariants: money is never a float",
    "policy.lookalike-symbols-refused": "issue 5, policy file shape: only plain tickers",
    "policy.defaults-conservative": "issue 5 §1: omitted keys and fresh installs are conservative",
    "policy.fail-closed-missing-data": "issue 5 §1, architecture, invariants: missing data refuses",
    "policy.stage-b-authoritative": "issue 5 §1, architecture, order path 4: reviewed terms decide",
    "policy.reducing-orders-exempt": "issue 5 §1: reducing orders pass spend caps and breakers",
    "policy.evaluate-deterministic": "issue 5 §1: evaluate is pure and deterministic",
    "policy.restriction-monotone": "issue 5 §1: a stricter policy never accepts what one refused",
    "policy.caps-never-exceeded": "issue 5 §1: an allowed opening order fits every cap",
    # The wall at the market-access standard (issue 27)
    "policy.duplicate-order": "issue 27: the same terms from one identity inside "
    "duplicate_window_s are refused duplicate_order at stage A, before anything is reserved",
    "policy.order-rate": "issue 27: orders per identity and per account in a rolling minute "
    "past the limit are refused order_rate at stage A, counted from the ledger",
    # The options wall's policy (issue 28 §3)
    "policy.options.not-enabled": "issue 28 §3: a policy without [options] refuses every "
    "option order options_not_enabled",
    "policy.options.strategy-from-legs": "issue 28 §3: the strategy is recognised from the "
    "legs and the holdings, never taken from the agent's word",
    "policy.options.max-loss-exact": "issue 28 §3: max loss is the worst payoff at expiry "
    "(unbounded: None), and undefined risk is refused unless the owner allows it",
    "policy.options.caps-to-the-cent": "issue 28 §3, acceptance: premium, daily premium, max "
    "loss and contracts refused one cent or one contract over their caps",
    # The authorization server (issue 26 §5)
    "oauth.cimd.fetch-fenced": "draft-ietf-oauth-client-id-metadata-document (security "
    "considerations), issue 26 §5: a client id URL is fetched https only, within a timeout, "
    "under a size cap, never redirected, never from a private address unless allowed, kept "
    "per its caching headers, used only when it names its own URL",
    "oauth.iss.every-response": "RFC 9207 §2, issue 26 §5: iss on every authorization "
    "response, success and error redirects, and advertised",
    "oauth.registration.application-type": "OpenID Connect Registration §2, issue 26 §5: "
    "application_type web or native accepted at registration, anything else refused",
    # The agent's own idempotency key (issue 26 §4)
    "wall.agent-key.once": "issue 26 §4, reference: an order's ref_id is filed once per "
    "identity (the ledger's key, across processes and replicas); a retry answers the first "
    "filing, another order under it is refused ref_id_reused; never sent to the venue",
    # The wall (issue 5 §2): the ledger
    "ledger.filing-reservation-atomic": "issue 5 §2, architecture, order path 2: one transaction",
    "ledger.tamper-evident": "issue 5 §2, architecture, invariants: edits/deletes/reorders caught",
    "ledger.caps-hold-across-processes": "issue 5 §2, architecture, invariants: no cap overshot",
    "ledger.postgres-parity": "issue 5 §2, architecture, scale: Postgres behaves as SQLite does",
    # The wall (issue 5 §4): redaction
    "redaction.opaque-token-masked": "issue 5 §4, architecture, invariants: secrets masked in logs",
    # The wall (issue 5 §4): the kill switch
    "controls.pause-refuses-new-orders-everywhere": "issue 5 §4: pause refuses in every process",
    "controls.pause-cancels-working-orders": (
        "issue 27: pause --cancel-open (and the console's) cancels every working order the "
        "gateway filed, on every replica, each outcome journalled, none placed after the pause"
    ),
    "wall.limit-collar": (
        "issue 27: a limit price beyond price_collar_bps from the mid of the quote at filing "
        "is refused at stage A, and of the review's quote at stage B"
    ),
    "wall.stale-quote": (
        "issue 27: a quote older than max_quote_age_s (the venue's feed behind its clock) is "
        "refused stale_quote at stage A and of the review's quote at stage B, nothing sent"
    ),
    "wall.cooldown": (
        "issue 27: buys are refused cooldown for [cooldown] minutes after a breaker last refused"
    ),
    "wall.cooldown.per-account": (
        "issue 27: a breaker tripped on one account cools down that account only; a "
        "ledger-wide trip recorded before trips were per account applies to every account"
    ),
    "wall.breakers.per-account": (
        "issue 27: each account on a ledger keeps its own high-water mark and session-start "
        "equity, so one account's drawdown or daily loss halts that account only; a "
        "ledger-wide mark kept from before is read as an account's until it has its own"
    ),
    "wall.cooldown.loss-window": (
        "issue 27: the loss streak counts every losing closed trade in the cooldown's window, "
        "however many filings there are, read from the window by an index"
    ),
    "wall.size-vs-adv": (
        "issue 27: an order's quantity above max_adv_pct of the symbol's average daily volume "
        "(the venue's day bars) is refused size_vs_adv; no volume refuses"
    ),
    "wall.duplicate-order": (
        "issue 27: the same terms from one identity inside duplicate_window_s are refused "
        "duplicate_order, naming the count and the window"
    ),
    "wall.order-rate": (
        "issue 27: an order past max_orders_per_minute (per identity) or "
        "max_account_orders_per_minute is refused order_rate, naming the count and the cap"
    ),
    "controls.breaker-cancels-working-orders": (
        "issue 27: under halt_cancels_open a tripped breaker cancels every working order"
    ),
    # The wall (issue 5 §3-§4): the guard, approvals, arming
    "wall.stage-b": "issue 5 §1: reviewed terms over a cap are refused at stage B",
    "wall.unanswered-looked-up": "issue 5 §3: no answer leaves unanswered; looked up by ref_id",
    "wall.reconcile-converges": "issue 5 §3: partial fills, cancels, rejections converge spend",
    "wall.approvals-bound": "issue 5 §4: approvals bound to exact terms, with a TTL",
    "wall.turn.processes": (
        "issue 24 §2: command lines and agents on one SQLite file keep max_open_orders and "
        "max_positions, nothing lost (the account's turn in the guard)"
    ),
    "wall.turn.replicas": (
        "issue 24 §2: command lines, agents and gateway replicas on one Postgres ledger keep "
        "max_open_orders and max_positions, nothing lost"
    ),
    "wall.late-order-adopted": (
        "issue 23 §9: an order that reaches the broker after it was declared not placed is "
        "adopted, counted against the caps, journalled, alerted, and pauses when over a cap"
    ),
    "ledger.reservations-and-controls-verified": (
        "issue 23 §12: a zeroed reservation or a rewritten control fails audit verify, naming "
        "it, and ordergate serve refuses to start on it"
    ),
    "wall.approval-binds-money": (
        "issue 23 §10: an approved order reviewed above the approved estimate by more than "
        "approval_slippage_pct is held for the owner again"
    ),
    "wall.live-arming": "issue 5 §4: live only with tools/list read, compatible, real money set",
    "wall.crypto.route-once": (
        "issue 29 §4: crypto.route auto takes the MCP when its tools/list resolves crypto_place "
        "and the REST rail otherwise, chosen once per filing; a readiness change before "
        "placement never places one order on both"
    ),
    "wall.crypto.rest-rail": (
        "issue 29 §3: the REST rail through the guard, placed under client_order_id = the "
        "filing's id and reconciled on that lane; a stale timestamp or a signature over "
        "another body refused at the venue, nothing placed"
    ),
    "wall.crypto.one-account": (
        "issue 29 §2: the REST rail and the MCP lane place into one account: the REST key's "
        "account_number must be the order's rhs_account_number, else nothing is placed"
    ),
    "wall.crash.no-duplicate-no-loss": "issue 5 acceptance: SIGKILL around place; no dup, no loss",
    "wall.property.caps-hold": "issue 5 acceptance: any interleaving keeps 24 h spend/ops in cap",
    # The gateway (issue 6; seed 001's threat list) and its custody
    "gateway.threat.code-replay": "RFC 6749 §4.1.2, seed 001: a replayed code ends its connection",
    "gateway.threat.other-browser": "seed 001: consent in one browser, sign-in in another refused",
    "gateway.threat.open-redirect": "RFC 6749 §4.1.2.1: an unregistered redirect gets no redirect",
    "gateway.threat.consent-nonce": "seed 001: a consent post needs its unspent one-time nonce",
    "gateway.threat.pkce": "RFC 7636 §4.6: a wrong verifier is refused and the code spent",
    "gateway.threat.resource-mismatch": "RFC 8707: a resource other than the gateway's refused",
    "gateway.threat.refresh-reuse": "OAuth 2.1 §4.3.1: refresh reuse ends every token",
    "gateway.threat.disguised-tool": "architecture, threat model: tools classed by their name",
    "gateway.threat.unnamed-argument": "seed 001: only the filing's own fields are forwarded",
    "gateway.threat.no-answer": "architecture, threat model: no answer is unanswered, not resent",
    "gateway.threat.foreign-token": "seed 001: a token the gateway did not mint is refused",
    "gateway.threat.oversize-body": "issue 6: request bodies capped at 8 KB",
    "gateway.threat.rate-limits": "issue 6: per-IP limits per request class",
    "console.origin-bound": "issue 23 §6: a console session needs its key (kept per origin in "
    "sessionStorage, sent as a header) besides the cookie; the cookie replayed from another "
    "port reads nothing",
    "gateway.threat.anonymous-rows": "issue 23 §8: an anonymous sign-in page stores no row; "
    "sessions not signed in and unused OAuth clients are swept",
    "gateway.threat.loopback-rotation": "issue 23 §8: per-IP classes key on the whole "
    "127.0.0.0/8 and ::1 for loopback peers, on the /24 or /64 otherwise",
    "gateway.threat.host-origin": "MCP transports security warning: Host and Origin validated",
    # Issue 13 §3, §5, §6: every real client connects; limits fit local use; health
    "mcp.versions.negotiated": "issue 13 §3: the gateway negotiates MCP 2025-03-26, 2025-06-18 "
    "and 2025-11-25; MCP-Protocol-Version is checked against the session's version",
    "oauth.redirect.private-use": "issue 13 §3, RFC 8252 §7.1: private-use URI scheme redirects "
    "register; javascript:, data:, file: and http beyond loopback are refused",
    "oauth.consent.app-redirect-warning": "issue 13 §3: the consent page warns that a private-use "
    "redirect goes to an app on this device",
    "oauth.scope.narrowed": "issue 13 §3, RFC 6749 §3.3: a scope beyond the gateway's offer is "
    "narrowed, and the token response names the granted scope",
    "gateway.limits.per-connection": "issue 13 §5: authenticated MCP traffic is limited per "
    "connection, each its own budget (~4 calls/s); OAuth routes and refused tokens per IP",
    "gateway.limits.jsonrpc-error": "issue 13 §5: a limited MCP request gets HTTP 429 with "
    "Retry-After and a JSON-RPC error carrying retry_after",
    "gateway.limits.redis-shared": "issue 13 §5: with --redis every replica shares each budget",
    "gateway.health": "issue 13 §6: /healthz and /readyz answer unauthenticated and reveal nothing",
    "gateway.metrics": "README: /metrics counts forwarded calls by tool and outcome and times "
    "them; its labels are tool names and fixed codes only",
    "gateway.custody.sealed-session": "architecture, custody: each upstream session sealed at rest",
    "gateway.custody.refresh": "issue 6: upstream tokens refreshed within a minute of expiry",
    "gateway.custody.revocation": "issue 6: an upstream revocation marks the connection dead",
    "gateway.custody.no-master-secret": "issue 6: without the master secret nobody is connected",
    # Issue 30 §4: per-tenant keys under a key service
    "gateway.keys.rotation": "issue 30 §4: rotation re-wraps every data key; all still work",
    "gateway.keys.resumable": "issue 30 §4: an interrupted rotation leaves all openable",
    "gateway.keys.no-token": "issue 30 §4: master secret without the token: no session",
    "gateway.keys.shredding": "issue 30 §4: an erased session is in no copy taken after",
    "gateway.keys.restore": "issue 30 §4: a restore from a backup cannot reopen an erased one",
    "gateway.keys.v1-moves": "issue 30 §4: a v1 session moves to a data key on use",
    "gateway.keys.master-rotation": "issue 30 §4: keys rotate moves to a new master secret",
    # Issue 30 §3: approval by default on the hosted rail
    "gateway.rail.approval-default": "issue 30 §3: a new hosted connection holds each order",
    "gateway.rail.approval-mode-person": "issue 30 §3: only the person's code turns it off",
    "gateway.push.delivered": "issue 30 §3, RFC 8291: a held order's push, aes128gcm, no terms",
    "gateway.push.vapid": "issue 30 §3, RFC 8292: the rail's VAPID token; a wrong key refused",
    "gateway.push.gone": "issue 30 §3, RFC 8030 §7.3: a 404/410 drops the subscription",
    "gateway.push.subscribe": "issue 30 §3: only the person's code registers a subscription",
    "gateway.push.service-worker": "issue 30 §3: the console's worker shows a held order's push",
    # Issue 14 §3: replicas that share one cap
    "gateway.replicas.one-cap": "issue 14 §3: 30 clients, 3 replicas: no cap passed, all on record",
    "gateway.replicas.sessions": "issue 14 §3: a session begun on one replica continues on another",
    "gateway.replicas.pause": "issue 14 §3: ordergate pause reaches every replica within 1 s",
    "gateway.replicas.shared-limits": "issue 14 §3: rate limits and tool lists shared in Redis",
    "gateway.replicas.killed-mid-order": "issue 14 §3: a SIGKILLed replica's order adopted",
    "gateway.replicas.deployment": "issue 14 §3: compose file and HAProxy config parse and agree",
    # Issue 12 §5: one authorization server
    "oauth.server.one-implementation": "issue 12 §5: every OAuth route of the venue and of "
    "the gateway is ordergate.oauth's one set of handlers",
    "oauth.scope.one-rule": "RFC 6749 §3.3: one scope grammar and rule at both servers",
    "oauth.authorize.missing-response-type": "RFC 6749 §4.1.2.1: invalid_request at both",
    "oauth.token.unknown-client": "RFC 6749 §5.2: an unknown client is invalid_client at both",
    "oauth.consent.hook": "issue 12 §5: the consent hook is asked on approve only, after the "
    "nonce is spent and the profile read; its refusal approves nothing",
    "gateway.consent.robinhood-facts": "issue 12 §4.8, seeds 000 §3 and 001: custodian, "
    "revocable token, no read-only scope, where to turn on Robinhood's trade approval",
    # Profiles and caller tokens (issue 7; seed 002)
    "profiles.tools-filtered": "issue 7: tools/list and calls only within the profile",
    "callers.monitor-cannot-place": "issue 7: a monitor token cannot place",
    "callers.bad-tokens-refused": "issue 7: tampered, expired and wrong-key tokens refused",
    "callers.identity-from-token": "seed 002: the token's identity wins over any header",
    "callers.broker-parity": "issue 7: the REST broker and MCP paths enforce identically",
    "callers.key-never-shown": "issue 7: the caller key never appears in any output",
    "callers.identity-per-mint": "issue 23 §7: a caller's identity is its name, profile and "
    "mint: a token minted under another caller's name sees none of its filings or fills (the "
    "account's orders are the venue's, on paper as live) and spends none of its budget",
    "callers.name-one-profile": "issue 23 §7: a caller name minted for one profile cannot be "
    "minted for another",
    "callers.read-only-one-budget": "issue 23 §7: caller tokens that cannot trade (minted with "
    "no code) share one budget",
    "model-text.inert": "issue 23 §11: control characters and newlines in model text are "
    "escaped wherever it is journalled or printed",
    "callers.revocable": "issue 23 §7: every caller token is revocable before it expires, "
    "refused at once on every replica",
    # Issue 12 §1–2: the owner's authority (owner acts need the owner code, through the gateway)
    "owner.totp.rfc6238": "RFC 6238: 6-digit, 30 s codes, one step of drift, otpauth:// URI",
    "owner.enrolment.private": "issue 12 §1: the enrolment is written 0600 in a 0700 home",
    "owner.enrolment.passphrase-hashed": "issue 12 §1: the passphrase kept only memory-hard hashed",
    "owner.code.required": "issue 12 §1: no enrolment or no code refuses every owner act",
    "owner.code.single-use": "RFC 6238 §5.2, issue 12 §1: a code (or an earlier one) once only",
    "owner.code.lockout": "issue 12 §1: 5 wrong codes in 15 min lock owner acts for 15 min",
    "owner.code.source-lockout": "issue 23 §8: a lockout per source (address class, or the "
    "owner's channel) with exponential backoff in front of the global one, read before any "
    "scrypt or write; the global lockout never holds the owner's channel",
    "owner.code.lock-alert": "issue 23 §8: every lock is announced (webhook) and journalled; "
    "the unlock by the gateway's OS user is journalled",
    "owner.code.scrypt-pool": "issue 23 §8: the passphrase's scrypt runs on its own small pool "
    "with a bounded queue (owner_busy past it), never on the ledger's threads",
    "owner.code.journalled-without-code": "issue 12 §1: every owner act journalled, never the code",
    "owner.act.consent": "issue 12 §1: approving a client on the consent page needs the code",
    "owner.consent.monitor-only-unenrolled": "issue 12 §1: unenrolled, consent grants monitor only",
    "owner.act.approve": "issue 12 §1: approving a held order needs the owner code",
    "owner.act.safer-needs-no-code": "issue 12 §1: deny, pause, revoke need no code; resume does",
    "owner.act.policy": "issue 12 §1: a policy that loosens needs the code; tightening does not",
    "owner.act.arm-live": "issue 12 §1: arming live is an owner act, journalled as such",
    "owner.act.token-mint": "issue 12 §1: a caller token that can trade needs the owner code",
    "owner.delay.loosening-waits": "issue 23 §4: an act that loosens takes effect only after "
    "the owner's delay (policy, arming live, trading token, approval above the threshold)",
    "owner.delay.cancelled-by-tightening": "issue 23 §4: a tightening, a pause or the owner's "
    "cancel (no code) ends what waits",
    "owner.delay.announced": "issue 23 §4: a waiting act is announced at once (webhook, journal, "
    "console)",
    "owner.passkey.delayed": "issue 23 §5: registering a passkey waits the delay and is announced",
    "owner.passkey.rp-not-ip": "issue 23 §5: the relying party is localhost or a domain, "
    "never an IP",
    "owner.passkey.revocable": "issue 23 §5: the console lists passkeys and revokes one at once",
    "owner.passkey.threshold-needs-code": "issue 23 §5: above the threshold a passkey approval "
    "still needs the owner code",
    "owner.route.local-only": "issue 12 §2, issue 23 §1: the owner routes are served on the "
    "owner channel only (a Unix socket, never TCP), to no browser",
    "owner.policy.loosening-named": "issue 12 §2: a policy change names each key it loosens",
    "owner.policy.applied-in-force": "issue 12 §2: a run enforces the applied policy (its hash)",
    "owner.secrets.never-shown": "issue 12: no owner code, TOTP secret or passphrase in output",
    # Issue 23 §1–3: the owner's code is typed only to the real gateway, for one act
    "owner.channel.fake-gateway": "issue 23 §1: a fake gateway on the default address collects "
    "no owner code (the owner's commands never talk TCP)",
    "owner.channel.checked-before-sending": "issue 23 §1: the command line refuses a socket "
    "another user could have put there (its directory, its owner, its peer), sending nothing",
    "owner.channel.peer-credentials": "issue 23 §1: the owner channel serves its own user, root "
    "and its directory's group (SO_PEERCRED); another user's peer is refused and journalled",
    "owner.code.not-in-argv": "issue 23 §2: no owner code on a command line: --code is gone, "
    "the code comes from a hidden prompt or --code-stdin",
    "owner.code.bound-to-act": "issue 23 §3: a code is spent on the digest of the act it was "
    "typed for; presented for any other act it is refused (owner_code_spent)",
    "owner.act.prepared": "issue 23 §3: an owner act runs exactly as prepared and shown, once; "
    "refused when what it was prepared on changed since",
    # Issue 12 §3: separation from the gateway's secrets
    # Issue 12: the attacks on the owner's authority, each closed
    "owner.threat.self-consent": "issue 12: an unattended client on loopback cannot consent "
    "itself a connection that can place (owner code; unenrolled, monitor only)",
    "owner.threat.local-commands": "issue 12: a local process cannot approve, resume, loosen or "
    "mint a trading token with the owner's commands (they ask the owner code)",
    "owner.threat.policy-file-edit": "issue 12 §2: an edited policy file that loosens stops the "
    "run; the applied policy is the one enforced",
    "owner.separation.files-private": "issue 12 §3: every file ordergate creates is 0600, in 0700",
    "owner.separation.serve-refuses-open-home": "issue 12 §3: serve refuses secrets open to others",
    "owner.separation.own-user": "issue 12 §3: systemd unit and container run it as its own user",
    "owner.separation.other-user": "issue 12 §3: another user reaches /mcp, not its files",
    # Issue 12 §4: bypasses closed
    "gateway.bypass.cancel-foreign-order": "issue 12 §4.1: a cancel of an order not filed by "
    "the connection is refused and not sent, unless its profile grants orders.cancel_any",
    "gateway.bypass.cancel-id-spelling": "issue 12 §4.1: order ids compared and forwarded in "
    "canonical form; a non-UUID id is refused",
    "gateway.bypass.caller-identity": "issue 12 §4.2: a connection-bound caller token's identity "
    "includes its connection",
    "gateway.bypass.forwarded-for": "issue 12 §4.3: X-Forwarded-For believed only from a named "
    "trusted proxy; limits key on the socket's peer",
    "gateway.bypass.host-origin-every-route": "issue 12 §4.4: Host and Origin checked on every "
    "gateway and sandbox route",
    "gateway.bypass.host-parsing": "issue 12 §4.4, RFC 3986 §3.2.2: Host and Origin parsed "
    "strictly (bracketed IPv6, ports, no userinfo)",
    "gateway.bypass.session-binding": "issue 12 §4.5, MCP 2025-11-25 transports security: a "
    "session is bound to the principal that opened it",
    "gateway.bypass.deep-json": "issue 12 §4.6: deeply nested or unparseable JSON is a 400, "
    "never a 500",
    "gateway.bypass.symbol-padding": "issue 12 §4.7: a symbol with space or a control "
    "character around it is refused, not stripped",
    "gateway.read.fast-path-same-answers": "architecture, at the edge: a forwarded read's fast "
    "path applies every check of the general path; all it does not serve, and every refusal, "
    "is the general path's own answer",
    # Issue 14 §1: cost independent of history
    "ledger.cost-bounded-by-open": "issue 14 §1: order path and reconciler queries use indexes",
    "ledger.open-filings-derived": "issue 14 §1: open set kept with its events, equal to them",
    "ledger.verify-since": "issue 14 §1: verify only what follows a checkpoint",
    "bench.history": "issue 14 §1: bench history, order_hN beside order_h0",
    "bench.history.own": "issue 31 §2: bench history, the account's own orders (order_own_hN), "
    "seeded with the rows its order path writes, on SQLite and Postgres",
    "bench.memory": "issue 31 §3: bench memory, a gateway's RSS after 1,000 and 10,000 orders",
    # Issue 14 §4: the hot path near its floor
    "bench.gateway.bare-hop": "issue 14 §4: bench gateway, bare_hop_read beside gateway_read",
    # Issue 13 §3–4: every real client connects
    "clients.config.each-client": "issue 13 §3: `client-config` prints each client's documented "
    "format (JSON, a shell command or TOML) naming the gateway's MCP URL",
    "clients.real.typescript-sdk": "issue 13 §4: the official TypeScript SDK client (pinned) "
    "registers, consents, lists the tools and reads through the gateway",
    "clients.real.mcp-remote": "issue 13 §4: mcp-remote (pinned) as a stdio process signs in "
    "headlessly and serves the gateway's tools over stdin and stdout",
    "clients.real.mcp-2025-03-26": "issue 13 §4, MCP 2025-03-26 authorization and lifecycle: a "
    "client of that revision alone signs in, is answered 2025-03-26, lists and calls tools",
    "clients.real.python-sdk": "issue 13 §4: the official Python SDK client registers, consents "
    "with the owner code, lists the tools and places a paper order through the gateway",
    # Issue 13 §1–2: the repository stands alone; tokens go only where they belong
    "repo.standalone": "issue 13 §1: nothing in src, tests, scripts or .ci reads outside the repo",
    "client.token.bound-to-server": "issue 13 §2: a saved token is sent to its own server only",
    "client.token.default-is-logged-in": "issue 13 §2: without --url, the logged-in server",
    "client.token.unbound-refused": "issue 13 §2: a token file naming no server is sent nowhere",
    "client.errors.name-url": "issue 13 §2: every connection error names the URL it tried",
    "client.login.gives-up": "issue 13 §2: login without a browser prints the URL, then gives up",
    # Issue 14 §2 and issue 13 §9: the database as its own layer, boundaries checked by tools
    "store.owned-migrations": "issue 14 §2: each package owns its tables and migrations; a "
    "ledger main wrote upgrades keeping every row",
    "store.import-contracts": "issue 13 §9: layers, and no package imports another's "
    "underscore module, checked by lint-imports",
    "store.steps-commit-together": "architecture, the order path: the writes of one step "
    "commit together; a failed step undoes only its own writes",
    "store.statement-as-sqlalchemy": "issue 14 §4: a statement run on the driver's cursor "
    "reads, writes and fails as SQLAlchemy's execution of it does, and its listeners see it",
    # Issue 15 §3: the graded record
    "record.grade.one-trading-day": "issue 15 §3: a fill graded at the close one NYSE session "
    "day on, minus SPY over the same span, signed by side, in bps",
    "record.grade.once": "issue 15 §3: grades are ledger records, one per filing, a re-run "
    "changes nothing",
    "record.grade.fail-closed": "issue 15 §3: a missing close is not yet, never a guessed price",
    "record.rank.after-thirty": "issue 15 §3: a rank among identities once thirty placements "
    "are graded, not before",
    "record.own-only": "issue 15 §3: gate_record shows an agent its own grades, never another's",
    "record.public.hashed": "issue 15 §3: the public record shows hashed identities, counts, "
    "grades and ranks, nothing else",
    # Issue 15 §1: paper is the whole loop
    "gateway.paper.reads-from-book": "issue 24 §1: in paper mode orders, positions and portfolio "
    "are the venue's own engine's answers on the paper book, in the venue's output schemas, "
    "marked paper in the guide",
    "gateway.paper.fail-closed": "issue 15 §1: an account read the paper book cannot answer is "
    "refused in paper mode, never passed through to the real account",
    "gateway.paper.live-unchanged": "issue 15 §1: live mode passes account reads through",
    "gateway.paper.realized-pnl": "issue 24 §1: in paper mode realised P&L and the P&L trade "
    "history are the engine's (the venue's own lots), on the rhs account number read from "
    "get_accounts, in the venue's shapes, marked paper",
    # Issue 25 §7: the first day's papercuts
    "owner.consent.retype": "issue 25 §7: a mistyped owner code on the consent page shows the "
    "page again to retype (each attempt counts toward the lockout) instead of ending the "
    "authorization request",
    "console.csp": "issue 25 §7: the console's pages run under their CSP without a violation "
    "(htmx's indicator style from the stylesheet, not inline) and have a favicon",
    "cli.help.grouped": "issue 25 §7: the root --help lists the commands under four headings: "
    "serve and connect, the owner's acts, the wall, tools and bench",
    "cli.serve.listens-when-ready": "issue 25 §7: serve listens only once its policy and "
    "profiles have loaded: a bad profile exits before the port ever accepts a connection",
    "cli.hints.as-typed": "issue 25 §7: a hint names the command the person types "
    "(scripts/uv run ordergate … under uv run)",
    "owner.recovery.reset": "issue 25 §7: a lost authenticator is recovered by the gateway's OS "
    "user: owner reset removes the enrolment, journalled, and owner init enrols afresh",
    "agent.llm.first-run": "issue 25 §5: the README's LLM agent config runs as written: a missing "
    "provider SDK is one line naming the uv command and exit 2; scripted replies documented",
    "owner.record.readable": "issue 25 §6: every identity shown to the owner has the client's "
    "registered name beside its hash; connections list gives the identity; a refused order "
    "shows its requested amount",
    # Issue 25 §3: limits that fit real clients
    "gateway.limits.local-budget": "issue 25 §3: what the gateway answers itself (handshake, "
    "listing, gate_* tools, paper reads of the book) spends a larger budget of its own; what "
    "goes upstream keeps the broker's pace",
    "clients.real.python-sdk-pace": "issue 25 §3: the MCP Python SDK's script (initialize, "
    "the whole listing, 20 mixed calls at its own pace) is never rate limited by default",
    # Issue 25 §4: paper answers arguments as the venue does
    "gateway.paper.venue-arguments": "issue 25 §4: in paper mode a required argument missing or "
    "null is refused naming it, as the venue's schema does; the paper book's own order ids are "
    "order ids",
    "gateway.paper.one-buying-power": "issue 25 §4: in paper mode a review's buying power is the "
    "paper account's, the one get_portfolio reports",
    "gateway.record.fills": "issue 15 §1: gate_record shows each filing's terms, status, fills "
    "(price, quantity, fees) and a grade slot",
    # Issue 13 §7: a CLI that feels native
    "cli.help.80-columns": "issue 13 §7: every --help at 80 columns: no placeholder, no cut word",
    "cli.fast-start": "issue 13 §7: --help imports no command module (heavy imports where used)",
    "cli.money-cents": "issue 13 §7: money in human output to the cent; JSON keeps the Decimal",
    "cli.decided-twice": "issue 13 §7: approving or denying a decided approval says so, exit 6",
    # Issue 13 §8: two clocks, kept apart
    "clocks.security-is-wall-time": "issue 13 §8: tokens, approvals' TTL and rate-limit windows "
    "keep security (wall) time while a sandbox market is elsewhere or stepped",
    "clocks.outside-session-next-open": "issue 13 §8: an outside_session refusal names the next "
    "allowed open and how to try the sandbox at another instant",
    # Issue 16: the agent runtime
    "agent.guard-only": "issue 16: every agent proposal goes through Guard.submit under the "
    "agent's identity; there is no other path to an order",
    "agent.sessions": "issue 16: the agent trades only in the sessions it and the policy allow, "
    "by its own calendar signal (a holiday is closed)",
    "agent.rebalance-converges": "issue 16: the rebalancer converges to its targets "
    "within the bands",
    "agent.journal-why": "issue 16: every decision (hold included) is journalled with its "
    "rationale and snapshot digest; `ordergate why` prints decision to grade",
    "agent.llm-dropped": "issue 16: malformed model output is dropped and journalled",
    "agent.breaker-sells-only": "issue 16: a tripped breaker moves the agent to REDUCING: "
    "only sells",
    "agent.split-rebases": "issue 16: a split re-bases the book's basis without tripping anything",
    "agent.paper-reads": "issue 16: in paper mode the agent's snapshot is the gateway's paper "
    "answers (get_portfolio, get_equity_positions, get_equity_orders), as an MCP agent reads it",
    "agent.reconcile-halts": "issue 16: the agent's book (its own fills and the cash they moved) "
    "against the broker's positions and NAV; a difference beyond 1 % halts buying, journalled",
    # Issue 15 §2: the owner's console
    "console.sign-in": "issue 15 §2: the console signs in the owner by the owner code (counted "
    "by the lockout) on a new session id; without a session every page redirects to sign-in",
    "console.csrf": "issue 15 §2: every console post needs its session's CSRF token",
    "console.origin": "issue 15 §2: a console post needs the console's own Origin",
    "console.no-bearer": "issue 15 §2: an agent's bearer token opens no console page",
    "console.session-expiry": "issue 15 §2: a console session ends when idle, by security time",
    "console.approve-reauth": "issue 15 §2: approving on the console re-authenticates (code or "
    "passkey); denying does not",
    "console.connections": "issue 15 §2: the console lists connections (client name, redirect "
    "host, profile, created, last used) and revokes one",
    "console.budget": "issue 15 §2: the console shows 24 h spend and orders against the caps, "
    "open orders against max_open_orders, the pause; pauses, and resumes with the code",
    "console.notify-link": "issue 15 §2: a waiting order's announcement (webhook, log) and the "
    "start-up banner link to the console; opening the link approves nothing",
    "console.filings": "issue 15 §2: the console lists filings and refusals filtered by "
    "identity, symbol, outcome and reason code",
    "console.policy": "issue 15 §2: the console shows the applied policy and a pending file's "
    "diff with the keys that loosen",
    "console.positions": "issue 15 §2: the console shows positions and cash (paper book or "
    "broker) and an equity curve with drawdown against the high-water mark as server-side SVG",
    "console.equity-history": "issue 15 §2: the equity curve's marks are kept on the ledger "
    "(a restart keeps the curve), never defaulted when equity cannot be read, and read back "
    "bounded (90 days, at most 500 points, by an index)",
    "console.passkey": "issue 15 §2: a passkey (WebAuthn) is registered with the owner code and "
    "then signs in and approves",
    "console.browser": "issue 15 acceptance: in real Chromium (a virtual WebAuthn "
    "authenticator) the owner enrols a passkey, signs in, approves, denies, revokes, pauses "
    "and resumes; each page is screenshotted at a phone and a desktop width",
    "rail.person.passkey": "issue 30 §1: on a hosted rail the person registers a passkey for "
    "their own connection on the consent flow (relying party: the rail's public host), sealed "
    "under the connection's data key and shredded with it; it signs them in to that "
    "connection's console only, which the operator's session never opens",
    "rail.person.operator-refused": "issue 30 acceptance: the operator's code is refused on a "
    "person's approval, resume, exercise and disconnect, each refusal journalled person_act",
    "rail.connection.pause": "issue 30 §1: the operator pauses any one connection without "
    "consent; the guard refuses that connection's orders alone (stage A and review after "
    "approval); only the person's own code resumes it",
    "rail.person.disconnect": "issue 30 §1: the person disconnects with their own code: tokens "
    "stop, session and data key erased, the link to revoke the grant at Robinhood answered",
    "rail.person.code-lockout": "issue 30 §1: wrong person codes are limited per connection "
    "(the lockout's state on the ledger replicas share), every refusal journalled",
    "rail.person.consent": "issue 30 §1: consent on a hosted rail needs no operator code: the "
    "person's own sign-in and enrolment are the authority",
    "rail.person.console": "issue 30 §2: a person's console shows only their connection's "
    "waiting orders and filings, approved with their passkey or code (never the operator's "
    "code), another connection's ids refused as unknown, and disconnect with the link to "
    "revoke the grant at Robinhood",
    "rail.person.limits": "issue 30 §1: a person sets their connection's limits with their "
    "own code anywhere up to the operator's ceiling (above it refused naming the field); the "
    "operator tightens them without consent and never loosens them; the guard holds each order "
    "to the limits in force; the person's console shows them under the ceiling",
    "rail.operator.approval-mode-on": "issue 30 §1: the operator turns a person's connection's "
    "approval mode on without consent (it only tightens), on the owner channel, the command "
    "line or the console; turning it off stays the person's act, the operator's refused and "
    "journalled",
    "rail.person.journal": "issue 30 acceptance: a person's deny on their console is journalled "
    "person_act under their connection (the approval keeps who denied it), and every passkey "
    "refused there is journalled: one registered nowhere under no connection, another "
    "connection's or a forged assertion under the connection it was tried on",
    "rail.operator.no-person-orders": "issue 30 §2: on a hosted rail a person's held order "
    "reaches that person only; the operator's approval webhook and the rail's log (at DEBUG) "
    "carry nothing naming it, while the operator's own alerts still reach the webhook",
    "rail.isolation": "issue 30 §5: two people on one hosted rail each trade, are held and "
    "approve their own; neither lists, reads, approves, cancels, pauses, resumes or "
    "disconnects the other's anything through /mcp, the broker, the console, the owner "
    "channel or the record, and the operator's code approves neither's order",
    # Issue 26 §1: MCP 2026-07-28 beside the handshake era
    "mcp.stateless.discover": "issue 26 §1, MCP 2026-07-28: server/discover names every "
    "version of both eras; a stateless request opens no session",
    "mcp.stateless.envelope": "issue 26 §1, MCP 2026-07-28: _meta, MCP-Protocol-Version, "
    "Mcp-Method and Mcp-Name are checked (-32602, -32020); an unsupported version is -32022 "
    "naming the supported ones",
    "mcp.stateless.same-answers": "issue 26 §1: both eras answer the same calls alike, through "
    "the same checks (host, token, limits, budget, profile, the fast read path)",
    "bench.gateway.stateless": "issue 26 §1: bench gateway, gateway_read_2026 (the stateless "
    "era) beside gateway_read, with era_ratio",
    "mcp.conformance.both-eras": "issue 26 §2: the conformance suite's 2025-11-25 and "
    "2026-07-28 requirement sets against the gateway, each scenario passing or listed with "
    "its reason",
    "mcp.held.input-required": "issue 26 §3: an order held for the owner answers a stateless "
    "client that takes URL elicitations an InputRequiredResult with the approval's console "
    "page; its retry answers the same until the owner decides, then the outcome (placed as "
    "filed, or denied), or past the expiry, expired; a 2025-11-25 client that declared "
    "elicitation.url gets elicitation/create in URL mode; any other the pending answer",
    "mcp.held.request-state-sealed": "issue 26 §3: a held order's requestState is sealed "
    "(HMAC-SHA256) and binds the connection, the tool, the arguments, the filed terms, the "
    "policy and the expiry: altered, replayed on another connection or by another call, it is "
    "refused",
    "clients.real.python-sdk-eras": "issue 26 §6: the MCP Python SDK in its default mode "
    "(2026-07-28) and pinned to legacy signs in, lists tools, reads a quote and gets a held "
    "order through the owner's approval",
    "clients.real.typescript-sdk-eras": "issue 26 §6: the TypeScript SDK's 2.x client "
    "(2026-07-28) and its 1.x SDK sign in, list tools, read a quote and get a held order "
    "through the owner's approval",
    "mcp.stateless.listen": "issue 26 §1, MCP 2026-07-28: subscriptions/listen is answered "
    "(the gateway sends no notifications: none acknowledged, ended at once)",
    "oauth.consent.real-browser": "a real browser approves on the consent page: its form post "
    "carries the page's own Origin (Referrer-Policy same-origin, never null)",
}

// The official TypeScript MCP SDK as an agent would use it: a StreamableHTTPClientTransport
// with an OAuthClientProvider. The provider's redirectToAuthorization is the person at the
// consent page, headless: it opens the authorization URL, fills the form (the owner code it
// is given, as the owner would type it) and presses Approve, then hands the code back.
//
// argv: NODE_MODULES MCP_URL; env: CONSENT_OWNER_CODE (optional), CONSENT_PROFILE (optional),
// MCP_SDK ("2": the 2.x line, @modelcontextprotocol/client, which speaks 2026-07-28; else the
// 1.x @modelcontextprotocol/sdk), ORDER (optional: the JSON arguments of an order to place).
// With ORDER, where the owner must act the script prints one line `OWNER <url or approval
// id>` on stdout and waits for one line on stdin (the owner acted) before it goes on: the
// 2.x client's elicitation handler gets the URL of a held order's console page; the 1.x
// client gets `pending_approval` and reads gate_record once the owner acted.
// Prints one JSON object as its last line on stdout: what each step showed (never a token
// or the code).
import { createRequire } from "node:module";
import path from "node:path";

import readline from "node:readline";

const [modules, mcpUrl] = process.argv.slice(2);
const require = createRequire(path.join(modules, "index.js"));
const v2 = process.env.MCP_SDK === "2";
const { Client, StreamableHTTPClientTransport, UnauthorizedError } = v2
  ? require("@modelcontextprotocol/client")
  : {
      ...require("@modelcontextprotocol/sdk/client/index.js"),
      ...require("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      ...require("@modelcontextprotocol/sdk/client/auth.js"),
    };
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

// The owner acts on `what` (printed), then the test answers one line.
async function owner(what) {
  process.stdout.write(`OWNER ${what}\n`);
  const { done } = await lines.next();
  if (done) throw new Error("the owner never answered");
}

const REDIRECT = "http://127.0.0.1:51237/callback";

function unescape(text) {
  return text
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

class HeadlessConsent {
  constructor() {
    this.client = undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.code = undefined;
    this.iss = undefined;
    this.discovery = undefined;
    this.pages = 0;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "ordergate-ts-sdk",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  // The 2.x line binds the callback to the authorization server it discovered (RFC 9207).
  saveDiscoveryState(state) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url) {
    const page = await fetch(url, { redirect: "manual" });
    if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
    const html = await page.text();
    this.pages += 1;
    const form = html.match(/<form method="post" action="([^"]*)">/);
    if (!form) throw new Error("no consent form on the page");
    const fields = new URLSearchParams();
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields.append(unescape(name), unescape(value));
    }
    if (process.env.CONSENT_PROFILE) fields.append("profile", process.env.CONSENT_PROFILE);
    if (html.includes('name="owner_code"')) fields.append("owner_code", process.env.CONSENT_OWNER_CODE ?? "");
    fields.append("decision", "approve");
    const answer = await fetch(new URL(unescape(form[1]), url), {
      method: "POST",
      body: fields,
      redirect: "manual",
    });
    const location = answer.headers.get("location");
    if (answer.status !== 302 || !location) throw new Error(`consent answered ${answer.status}`);
    const back = new URL(location);
    if (`${back.origin}${back.pathname}` !== REDIRECT) throw new Error("consent redirected elsewhere");
    if (back.searchParams.get("state") !== url.searchParams.get("state")) throw new Error("state changed");
    this.code = back.searchParams.get("code");
    this.iss = back.searchParams.get("iss") ?? undefined;
  }
}

const elicited = [];

async function connected(provider) {
  const client = new Client(
    { name: "ordergate-ts-sdk", version: "1.0.0" },
    // The 2.x line connects in the handshake era unless told to probe server/discover.
    v2 ? { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: "auto" } } : {},
  );
  if (v2) {
    client.setRequestHandler("elicitation/create", async (request) => {
      elicited.push(request.params.url);
      await owner(request.params.url);
      return { action: "accept" };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return client;
}

async function main() {
  const provider = new HeadlessConsent();
  let client;
  let challenged = false;
  try {
    client = await connected(provider);
  } catch (error) {
    // The first connect meets the 401: discovery, registration and consent happen here, and
    // the SDK leaves the exchange of the code to the application, then a fresh connect.
    if (!(error instanceof UnauthorizedError)) throw error;
    challenged = true;
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    await transport.finishAuth(provider.code, provider.iss);
    client = await connected(provider);
  }
  const names = [];
  let cursor;
  for (let pages = 0; pages < 20; pages += 1) {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  const quote = await client.callTool({ name: "get_equity_quotes", arguments: { symbols: ["SPY"] } });
  let order = null;
  if (process.env.ORDER) {
    const placed = await client.callTool({ name: "place_equity_order", arguments: JSON.parse(process.env.ORDER) });
    let data = placed.structuredContent?.data ?? null;
    const answered = data?.status ?? null;
    if (answered === "pending_approval") {
      await owner(data.approval_id);
      const record = await client.callTool({ name: "gate_record", arguments: {} });
      data = record.structuredContent.data.filings.find((filing) => filing.filing_id === data.filing_id);
    }
    order = { answered, standing: data?.status ?? null, elicited };
  }
  const seen = {
    challenged,
    consentPages: provider.pages,
    clientId: provider.client?.client_id ?? null,
    tokenType: provider.saved?.token_type ?? null,
    scope: provider.saved?.scope ?? null,
    hasRefreshToken: Boolean(provider.saved?.refresh_token),
    protocolVersion: v2 ? (client.getNegotiatedProtocolVersion?.() ?? client.transport.protocolVersion ?? null) : (client.transport.protocolVersion ?? null),
    server: client.getServerVersion() ?? null,
    tools: names,
    quote: { isError: quote.isError ?? false, structuredContent: quote.structuredContent ?? null },
    order,
  };
  await client.close();
  process.stdout.write(JSON.stringify(seen) + "\n");
  process.exit(0); // stdin stays open: the test's pipe
}

await main();

// tracksuit as an OAuth *client* (feature `oauth`, the `oauth_client` example), end to end
// against authorization servers nobody here wrote:
//
// 1. oidc-provider (provider.mjs) in front of the `auth` example server started with
//    `--required-scope notes:read` (its 401 asks for notes:read only; `write_note` needs
//    notes:write), in both eras (2025-11-25 sessions, 2026-07-28 stateless):
//    - authorization code + PKCE with dynamic client registration, the login and consent
//      pages followed by the client's scripted user agent; a refresh when the short-lived
//      access token expires and when the server refuses a token (no new consent); a step-up
//      to notes:write on `insufficient_scope`;
//    - the same with a pre-registered public client, and through the command-line user
//      agent (a loopback listener; this script plays the browser);
//    - client credentials with a secret (and its step-up), and with private_key_jwt.
//    What the authorization server did is counted from its own events (grants by type,
//    login and consent interactions, registrations), per run.
// 2. the TypeScript SDK's demo authorization server (`simpleStreamableHttp --oauth
//    --oauth-strict` from the npm package, offline): registration, code + PKCE, a tool call.
//
// 3. the provider bridge's example client (real_model) with `--http --oauth`, when given.
//
// usage: node client.mjs <auth example binary> <oauth_client example binary> [<real_model example binary>]
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { startProvider } from "./provider.mjs";

const [authBinary, clientBinary, realModelBinary] = process.argv.slice(2);
if (!authBinary || !clientBinary) {
  console.error("usage: node client.mjs <auth-binary> <oauth_client-binary>");
  process.exit(2);
}

let failures = 0;
function check(name, ok, detail = "") {
  // The detail (what the client printed, what the provider counted) only when it failed.
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${!ok && detail ? ` — ${detail}` : ""}`);
  if (!ok) failures++;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Resolves once something accepts connections on `port` (polled, at most 30 s). */
async function waitForPort(port, host = "127.0.0.1") {
  for (let i = 0; i < 300; i++) {
    const up = await new Promise((r) => {
      const s = net.connect(port, host, () => (s.end(), r(true)));
      s.on("error", () => r(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${host}:${port}`);
}

/**
 * Runs the client with `args`; its step lines and summary (it prints JSON lines). With
 * `browser`, each authorization URL the client prints to stderr is handed to it.
 */
async function runClient(args, browser, binary = clientBinary) {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", browser ? "pipe" : "inherit"] });
  const stderr = [];
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const browsing = [];
  if (browser) {
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      let at;
      while ((at = err.indexOf("\n")) >= 0) {
        const line = err.slice(0, at);
        err = err.slice(at + 1);
        const url = /Open this URL to authorize: (\S+)/.exec(line)?.[1];
        if (url) browsing.push(browser(new URL(url)));
        else stderr.push(line);
      }
    });
  }
  const code = await new Promise((r) => child.on("exit", r));
  await Promise.all(browsing);
  const lines = out.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  return { code, steps: lines.filter((l) => l.step), summary: lines.find((l) => l.summary)?.summary, stdout: out, stderr };
}

/** What the provider counted during `run` (a delta of its event counters). */
async function counted(as, run) {
  const before = { ...as.counts };
  const result = await run();
  const delta = {};
  for (const [k, v] of Object.entries(as.counts)) if (v !== (before[k] ?? 0)) delta[k] = v - (before[k] ?? 0);
  return { ...result, delta };
}

const show = (r) => JSON.stringify({ code: r.code, steps: r.steps, summary: r.summary, delta: r.delta });

const asPort = await freePort();
const mcpPort = await freePort();
const resource = `http://127.0.0.1:${mcpPort}/mcp`;
// Never listened on: the scripted user agent stops at the redirect.
const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
const accessTokenTTL = 4; // seconds: the client refreshes once half of it has passed
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const dir = mkdtempSync(path.join(tmpdir(), "oauth-e2e-"));
const keyFile = path.join(dir, "svc-jwt.pem");
writeFileSync(keyFile, privateKey.export({ format: "pem", type: "pkcs8" }));

const as = await startProvider({
  port: asPort,
  resourceBases: [`http://127.0.0.1:${mcpPort}/`],
  redirectUri,
  registration: true,
  offlineAccess: true,
  accessTokenTTL,
  extraClients: [
    {
      client_id: "mcp-cli",
      token_endpoint_auth_method: "none",
      application_type: "native",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      redirect_uris: [redirectUri],
    },
    {
      client_id: "svc-jwt",
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_signing_alg: "ES256",
      jwks: { keys: [{ ...publicKey.export({ format: "jwk" }), alg: "ES256", use: "sig" }] },
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      scope: "notes:read notes:write",
    },
  ],
});
console.log(`oidc-provider at ${as.issuer}, access tokens for ${accessTokenTTL} s`);
const server = spawn(
  authBinary,
  ["--port", String(mcpPort), "--issuer", as.issuer, "--resource", resource, "--required-scope", "notes:read"],
  { stdio: ["ignore", "inherit", "inherit"] },
);
let exited = false;
server.on("exit", () => (exited = true));
let demo;

try {
  await waitForPort(mcpPort);
  for (const era of ["session", "stateless"]) {
    await codeFlow(era);
    await preRegistered(era);
    await clientCredentials(era);
  }
  await loopback("session");
  if (realModelBinary) await realModel();
  await tsDemo();
} catch (e) {
  check("client e2e ran to the end", false, e.stack ?? String(e));
} finally {
  if (!exited) server.kill();
  if (demo && demo.exitCode === null) demo.kill();
  await as.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Authorization code + PKCE with dynamic registration, expiry, a refused token, step-up. */
async function codeFlow(era) {
  const tag = `[${era}] code + PKCE, registered dynamically:`;
  const r = await counted(as, () =>
    runClient(["--server", resource, "--era", era, "--redirect-uri", redirectUri,
      "whoami", "wait-expiry", "whoami", "write_note=hello", "whoami", "spoil", "whoami"]),
  );
  const [first, , expired, wrote, after, , recovered] = r.steps;
  const clientId = /client=(\S+)/.exec(first?.text ?? "")?.[1];
  check(`${tag} the client ran, in the ${era} era`, r.code === 0 && r.summary?.era === era, show(r));
  check(`${tag} whoami is alice with notes:read (the 401's scope)`,
    first?.text === `subject=alice client=${clientId} scopes=notes:read` && clientId !== "mcp-cli", first?.text ?? first?.error);
  check(`${tag} offline_access asked (with prompt=consent): a refresh token came with the first token`, first?.refresh_token === true, JSON.stringify(first));
  check(`${tag} after expiry: whoami again, with a new access token`,
    expired?.text === first?.text && expired?.token_changed === true, JSON.stringify(expired));
  check(`${tag} step-up: write_note (needs notes:write) ran after a second authorization`,
    wrote?.text === "alice wrote: hello" && wrote?.scopes?.includes("notes:write"), JSON.stringify(wrote));
  check(`${tag} the stepped-up token carries both scopes`,
    after?.text === `subject=alice client=${clientId} scopes=notes:read notes:write`, after?.text ?? after?.error);
  check(`${tag} a token the server refuses (401) is refreshed, the call succeeds`,
    recovered?.text === after?.text && recovered?.token_changed === true, JSON.stringify(recovered));
  check(`${tag} the user agent ran twice (first authorization, step-up)`, r.summary?.user_agent_runs === 2, show(r));
  const d = r.delta;
  check(`${tag} at oidc-provider: 1 registration, 1 login, 2 consents, 2 code grants`,
    d.registration === 1 && d["interaction:login"] === 1 && d["interaction:consent"] === 2 && d["grant:authorization_code"] === 2,
    JSON.stringify(d));
  check(`${tag} at oidc-provider: 2 refresh grants (expiry, refused token), no other grant`,
    d["grant:refresh_token"] === 2 && !d["grant:client_credentials"], JSON.stringify(d));
}

/**
 * A browser for the loopback user agent: follows the provider's redirects (login and
 * consent approve at once), carrying its cookies, and finally loads the loopback redirect
 * URI, as a browser would. Records each URL it was asked to open.
 */
function loopbackBrowser() {
  const jar = new Map();
  const opened = [];
  const browse = async (start) => {
    opened.push(start);
    const redirect = start.searchParams.get("redirect_uri");
    let url = start;
    for (let hop = 0; hop < 12; hop++) {
      const res = await fetch(url, { redirect: "manual", headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const at = pair.indexOf("=");
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      if (redirect && url.href.startsWith(redirect)) return res.status;
      const location = res.headers.get("location");
      if (!location) throw new Error(`the browser stopped at ${url} with ${res.status}`);
      url = new URL(location, url);
    }
    throw new Error("too many redirects");
  };
  return { browse, opened };
}

/** The command-line user agent (a loopback listener), a browser driven by this test. */
async function loopback(era) {
  const tag = `[${era}] code + PKCE through the loopback user agent:`;
  const browser = loopbackBrowser();
  const r = await counted(as, () =>
    runClient(["--server", resource, "--era", era, "--loopback", "whoami", "write_note=via loopback"], browser.browse),
  );
  const [first, wrote] = r.steps;
  check(`${tag} whoami, then write_note after a step-up`,
    r.code === 0 && /^subject=alice client=\S+ scopes=notes:read$/.test(first?.text ?? "") && wrote?.text === "alice wrote: via loopback",
    show(r));
  const redirects = browser.opened.map((u) => u.searchParams.get("redirect_uri"));
  check(`${tag} the browser opened 2 authorization URLs, both redirecting to the listener on 127.0.0.1`,
    redirects.length === 2 && redirects.every((u) => /^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(u ?? "")), JSON.stringify(redirects));
  check(`${tag} at oidc-provider: 1 registration, 2 code grants`,
    r.delta.registration === 1 && r.delta["grant:authorization_code"] === 2, JSON.stringify(r.delta));
}

/**
 * The provider bridge's example client (providers/examples/real_model.rs) with `--http
 * --oauth`: it authorizes through its loopback user agent and connects. It then stops at
 * its first tool, `itinerary`, which the `auth` example does not have (the model part is
 * tests/interop/model/run.sh's): the refusal names that tool, after the authorization.
 */
async function realModel() {
  const tag = "[providers real_model --http --oauth]";
  const browser = loopbackBrowser();
  const r = await counted(as, () =>
    runClient(["--base-url", "http://127.0.0.1:9/v1", "--http", resource, "--oauth"], browser.browse, realModelBinary),
  );
  check(`${tag} the browser opened one authorization URL for the listener on 127.0.0.1`,
    browser.opened.length === 1 && /^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(browser.opened[0]?.searchParams.get("redirect_uri") ?? ""),
    JSON.stringify(browser.opened));
  check(`${tag} at oidc-provider: 1 registration, 1 code grant`,
    r.delta.registration === 1 && r.delta["grant:authorization_code"] === 1, JSON.stringify(r.delta));
  check(`${tag} connected: its first call reached the server and was refused as an unknown tool`,
    r.code !== 0 && r.stdout.includes("sample_schema::<Itinerary>") && r.stderr.some((l) => l.includes("itinerary")) && !r.stderr.some((l) => /authoriz/i.test(l)),
    JSON.stringify({ code: r.code, stdout: r.stdout, stderr: r.stderr }));
}

/** The pre-registered public client `mcp-cli`: no registration, refresh on a refused token. */
async function preRegistered(era) {
  const tag = `[${era}] code + PKCE, pre-registered client:`;
  const r = await counted(as, () =>
    runClient(["--server", resource, "--era", era, "--redirect-uri", redirectUri, "--client-id", "mcp-cli",
      "whoami", "spoil", "whoami"]),
  );
  const [first, , again] = r.steps;
  check(`${tag} whoami`, r.code === 0 && first?.text === "subject=alice client=mcp-cli scopes=notes:read", show(r));
  check(`${tag} a refused token is refreshed`, again?.text === first?.text && again?.token_changed === true, JSON.stringify(again));
  const d = r.delta;
  check(`${tag} at oidc-provider: no registration, 1 code grant, 1 refresh`,
    !d.registration && d["grant:authorization_code"] === 1 && d["grant:refresh_token"] === 1, JSON.stringify(d));
}

/** Client credentials, with a secret (and a step-up) and with private_key_jwt. */
async function clientCredentials(era) {
  let tag = `[${era}] client credentials (secret):`;
  let r = await counted(as, () =>
    runClient(["--server", resource, "--era", era, "--grant", "client-credentials", "--client-id", "svc",
      "--client-secret", "svc-secret", "whoami", "write_note=from svc", "whoami"]),
  );
  check(`${tag} whoami is svc with notes:read`, r.code === 0 && r.steps[0]?.text === "subject=svc client=svc scopes=notes:read", show(r));
  check(`${tag} step-up: write_note after a second grant with notes:write`,
    r.steps[1]?.text === "svc wrote: from svc" && r.steps[2]?.text === "subject=svc client=svc scopes=notes:read notes:write",
    JSON.stringify(r.steps));
  check(`${tag} at oidc-provider: 2 client_credentials grants, no user interaction`,
    r.delta["grant:client_credentials"] === 2 && !r.delta["interaction:login"] && !r.delta["interaction:consent"] && r.summary?.user_agent_runs === 0,
    JSON.stringify(r.delta));

  tag = `[${era}] client credentials (private_key_jwt):`;
  r = await counted(as, () =>
    runClient(["--server", resource, "--era", era, "--grant", "private-key-jwt", "--client-id", "svc-jwt",
      "--key", keyFile, "--alg", "ES256", "whoami"]),
  );
  check(`${tag} whoami is svc-jwt`, r.code === 0 && r.steps[0]?.text === "subject=svc-jwt client=svc-jwt scopes=notes:read", show(r));
  check(`${tag} at oidc-provider: 1 client_credentials grant`, r.delta["grant:client_credentials"] === 1, JSON.stringify(r.delta));
}

/** The TypeScript SDK's demo authorization server and MCP server, from the npm package. */
async function tsDemo() {
  const script = new URL("node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js", import.meta.url).pathname;
  const mcp = await freePort();
  const auth = await freePort();
  demo = spawn(process.execPath, [script, "--oauth", "--oauth-strict"], {
    env: { ...process.env, MCP_PORT: String(mcp), MCP_AUTH_PORT: String(auth) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitForPort(mcp);
  await waitForPort(auth);
  for (const era of ["session", "negotiate"]) {
    const tag = `[TS SDK demo authorization server, era ${era}]`;
    const r = await runClient(["--server", `http://localhost:${mcp}/mcp`, "--era", era,
      "--redirect-uri", "http://localhost:8976/callback", "tools", 'greet={"name":"tracksuit"}']);
    check(`${tag} registered, authorized, listed tools`, r.code === 0 && (r.steps[0]?.text ?? "").split(" ").includes("greet"), show(r));
    check(`${tag} greet ran`, r.steps[1]?.text === "Hello, tracksuit!", JSON.stringify(r.steps[1]));
    check(`${tag} one authorization, a 2025-11-25 session (the demo has no 2026-07-28)`,
      r.summary?.user_agent_runs === 1 && r.summary?.era === "session", JSON.stringify(r.summary));
  }
}

console.log(failures === 0 ? "oauth client e2e: all passed" : `oauth client e2e: ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);

// tracksuit as an OAuth 2.1 resource server, against an authorization server nobody here
// wrote (oidc-provider, on loopback) and the TypeScript SDK client's OAuth support:
//
// 1. protected resource metadata at both well-known paths; 401 with its URL;
// 2. the SDK's client-credentials provider runs the discovery flow (401 → resource metadata
//    → authorization server metadata → token with `resource` → call);
// 3. the SDK's authorization code + PKCE flow, the redirect driven programmatically;
// 4. every kind of bad token gets the right status and challenge, and none reaches a tool;
// 5. a second server checks opaque tokens by introspection (RFC 7662) at the provider.
//
// usage: node run.mjs <path to the `auth` example binary>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { SignJWT, importJWK } from "jose";
import { spawn } from "node:child_process";
import net from "node:net";
import { privateJwk, startProvider } from "./provider.mjs";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node run.mjs <auth-example-binary>");
  process.exit(2);
}

let failures = 0;
function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  if (!ok) failures++;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const textOf = (r) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

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

async function waitForPort(port) {
  for (let i = 0; i < 300; i++) {
    const up = await new Promise((r) => {
      const s = net.connect(port, "127.0.0.1", () => (s.end(), r(true)));
      s.on("error", () => r(false));
    });
    if (up) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on ${port}`);
}

const asPort = await freePort();
const mcpPort = await freePort();
const appPort = await freePort();
const opaquePort = await freePort();
const opaqueResource = `http://127.0.0.1:${opaquePort}/mcp`;
const resource = `http://127.0.0.1:${mcpPort}/mcp`;
const metadataUrl = `http://127.0.0.1:${mcpPort}/.well-known/oauth-protected-resource/mcp`;
const redirectUri = `http://127.0.0.1:${appPort}/callback`;

const as = await startProvider({
  port: asPort,
  resourceBases: [`http://127.0.0.1:${mcpPort}/`, `http://127.0.0.1:${opaquePort}/`],
  opaqueBase: `http://127.0.0.1:${opaquePort}/`,
  redirectUri,
});
console.log(`oidc-provider at ${as.issuer}`);
const server = spawn(binary, ["--port", String(mcpPort), "--issuer", as.issuer, "--resource", resource], {
  stdio: ["ignore", "inherit", "inherit"],
});
let exited = false;
server.on("exit", () => (exited = true));
const opaqueServer = spawn(
  binary,
  ["--port", String(opaquePort), "--issuer", as.issuer, "--resource", opaqueResource,
   "--introspection", `${as.issuer}/token/introspection`, "--client-id", "mcp-server", "--client-secret", "mcp-server-secret",
   "--hide-unauthorized"],
  { stdio: ["ignore", "inherit", "inherit"] },
);
let opaqueExited = false;
opaqueServer.on("exit", () => (opaqueExited = true));

/** A raw JSON-RPC POST to the MCP endpoint with `authorization` (a header value or none). */
async function post(authorization, body, session) {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  if (authorization !== undefined) headers.authorization = authorization;
  if (session) headers["mcp-session-id"] = session;
  return fetch(resource, { method: "POST", headers, body: JSON.stringify(body) });
}
const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "auth-interop", version: "1" } },
};

/** A token from the provider's token endpoint by the client-credentials grant. */
async function clientCredentials(scope, forResource) {
  const res = await fetch(`${as.issuer}/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from("svc:svc-secret").toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope, resource: forResource }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`token endpoint: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The `calls` tool's count (how often the other tools ran), with a valid token. */
async function callsSoFar(token, at = resource) {
  const client = new Client({ name: "auth-interop", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(at), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const n = Number(textOf(await client.callTool({ name: "calls", arguments: {} })));
  await client.close();
  return n;
}

try {
  await waitForPort(mcpPort);

  // --- 1. Discovery documents and the bare 401.
  for (const url of [metadataUrl, `http://127.0.0.1:${mcpPort}/.well-known/oauth-protected-resource`]) {
    const res = await fetch(url);
    const doc = await res.json();
    check(`protected resource metadata at ${new URL(url).pathname}`, res.ok && doc.resource === resource && doc.authorization_servers?.[0] === as.issuer, JSON.stringify(doc));
  }
  {
    const res = await post(undefined, initialize);
    const h = res.headers.get("www-authenticate") ?? "";
    check("no token: 401 with resource_metadata and scope", res.status === 401 && h.includes(`resource_metadata="${metadataUrl}"`) && h.includes('scope="notes:read notes:write"'), `${res.status} ${h}`);
  }

  // --- 2. Client credentials through the SDK's own discovery flow.
  const tokensSeen = [];
  {
    const provider = new ClientCredentialsProvider({ clientId: "svc", clientSecret: "svc-secret", scope: "notes:read", expectedIssuer: as.issuer });
    const save = provider.saveTokens.bind(provider);
    provider.saveTokens = (t) => (tokensSeen.push(t), save(t));
    const client = new Client({ name: "auth-interop-cc", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
    const who = textOf(await client.callTool({ name: "whoami", arguments: {} }));
    check("client credentials (SDK discovery flow): whoami", who === "subject=svc client=svc scopes=notes:read", who);
    check("the SDK obtained one token", tokensSeen.length === 1, `${tokensSeen.length}`);
    await client.close();
  }
  const readToken = await clientCredentials("notes:read", resource);
  const writeToken = await clientCredentials("notes:read notes:write", resource);

  // --- 3. Authorization code + PKCE through the SDK, the browser step automated.
  {
    let authorizationUrl;
    let verifier;
    let tokens;
    const provider = {
      get redirectUrl() {
        return redirectUri;
      },
      get clientMetadata() {
        return { client_name: "auth-interop", redirect_uris: [redirectUri], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "none" };
      },
      clientInformation: () => ({ client_id: "mcp-app", issuer: as.issuer }),
      tokens: () => tokens,
      saveTokens: (t) => (tokens = t),
      redirectToAuthorization: (url) => (authorizationUrl = url),
      saveCodeVerifier: (v) => (verifier = v),
      codeVerifier: () => verifier,
    };
    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
    const client = new Client({ name: "auth-interop-code", version: "1" });
    let redirected = false;
    try {
      await client.connect(transport);
    } catch (e) {
      redirected = e instanceof UnauthorizedError;
    }
    check("authorization code: the SDK asked for a redirect", redirected && authorizationUrl !== undefined);
    const params = authorizationUrl?.searchParams;
    check("authorization request names the resource (RFC 8707) and uses PKCE S256", params?.get("resource") === resource && params?.get("code_challenge_method") === "S256", String(authorizationUrl));

    // What the browser would do: follow redirects through the (automated) login and
    // consent, carrying the provider's cookies, until the redirect URI with the code.
    const jar = new Map();
    let url = authorizationUrl;
    let code;
    for (let hop = 0; hop < 12 && url && !code; hop++) {
      const res = await fetch(url, { redirect: "manual", headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const at = pair.indexOf("=");
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = res.headers.get("location");
      if (!location) throw new Error(`authorization stopped at ${url} with ${res.status}: ${await res.text()}`);
      url = new URL(location, url);
      if (url.href.startsWith(redirectUri)) code = url.searchParams.get("code");
    }
    check("authorization code: the redirect came back with a code", Boolean(code), String(url));
    await transport.finishAuth(code);
    check("authorization code: the SDK exchanged it for a token", Boolean(tokens?.access_token));

    const again = new Client({ name: "auth-interop-code", version: "1" });
    await again.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
    const who = textOf(await again.callTool({ name: "whoami", arguments: {} }));
    check("authorization code: whoami is alice", who === "subject=alice client=mcp-app scopes=notes:read notes:write", who);
    const wrote = textOf(await again.callTool({ name: "write_note", arguments: { text: "hello" } }));
    check("authorization code: write_note with notes:write", wrote === "alice wrote: hello", wrote);
    await again.close();
  }

  // --- 4. Bad tokens: each refused with the right status and challenge, none reaching a tool.
  const before = await callsSoFar(readToken);
  const key = await importJWK(as.signing, "ES256");
  const now = Math.floor(Date.now() / 1000);
  const forge = async (claims, { signWith = key, kid = as.signing.kid, typ = "at+jwt" } = {}) =>
    new SignJWT({ scope: "notes:read notes:write", ...claims })
      .setProtectedHeader({ alg: "ES256", kid, typ })
      .sign(signWith);
  const good = { iss: as.issuer, aud: resource, sub: "mallory", iat: now, exp: now + 300 };
  const rogue = privateJwk("ec", "ES256", as.signing.kid);
  const unknown = privateJwk("ec", "ES256", "unknown-kid");
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const otherResource = await clientCredentials("notes:read", `http://127.0.0.1:${mcpPort}/other`);
  const cases = [
    ["expired", `Bearer ${await forge({ ...good, iat: now - 900, exp: now - 600 })}`, 401, "invalid_token"],
    ["not yet valid", `Bearer ${await forge({ ...good, nbf: now + 600 })}`, 401, "invalid_token"],
    ["wrong audience (forged)", `Bearer ${await forge({ ...good, aud: "http://127.0.0.1:1/mcp" })}`, 401, "invalid_token"],
    ["wrong audience (issued by the provider for another resource)", `Bearer ${otherResource}`, 401, "invalid_token"],
    ["wrong issuer", `Bearer ${await forge({ ...good, iss: "http://evil.example" })}`, 401, "invalid_token"],
    ["bad signature", `Bearer ${await forge(good, { signWith: await importJWK(rogue, "ES256") })}`, 401, "invalid_token"],
    ["an ID token (typ JWT) with the right audience", `Bearer ${await forge(good, { typ: "JWT" })}`, 401, "invalid_token"],
    ["alg none", `Bearer ${b64({ alg: "none", kid: as.signing.kid })}.${b64(good)}.`, 401, "invalid_token"],
    ["unknown kid", `Bearer ${await forge(good, { signWith: await importJWK(unknown, "ES256"), kid: "unknown-kid" })}`, 401, "invalid_token"],
    ["malformed header (no token)", "Bearer", 400, "invalid_request"],
    ["malformed header (two tokens)", `Bearer ${readToken} ${readToken}`, 400, "invalid_request"],
    ["another scheme", "Basic c3ZjOnN2Yy1zZWNyZXQ=", 401, null],
  ];
  // A session opened with a good token, so that each bad one is tried on a real call.
  const opened = await post(`Bearer ${readToken}`, initialize);
  const session = opened.headers.get("mcp-session-id");
  await post(`Bearer ${readToken}`, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
  for (const [what, authorization, status, error] of cases) {
    const res = await post(authorization, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }, session);
    const h = res.headers.get("www-authenticate") ?? "";
    const okHeader = h.includes(`resource_metadata="${metadataUrl}"`) && (error === null ? !h.includes("error=") : h.startsWith(`Bearer error="${error}"`));
    check(`bad token, ${what}: ${status}${error ? ` ${error}` : ""}`, res.status === status && okHeader, `${res.status} ${h}`);
  }
  {
    const res = await post(`Bearer ${readToken}`, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "write_note", arguments: { text: "x" } } }, session);
    const h = res.headers.get("www-authenticate") ?? "";
    const body = await res.json();
    check(
      "missing scope: 403 insufficient_scope naming exactly the operation's scope, notes:write",
      res.status === 403 && h.startsWith('Bearer error="insufficient_scope", scope="notes:write"') && h.includes(`resource_metadata="${metadataUrl}"`) && body.id === 2,
      `${res.status} ${h}`,
    );
  }
  const after = await callsSoFar(readToken);
  check("no refused request reached a tool", after === before, `${before} → ${after}`);

  // The token with the scope still works on the same session.
  const res = await post(`Bearer ${writeToken}`, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "write_note", arguments: { text: "ok" } } }, session);
  check("the same call with notes:write runs", res.status === 200 && (await res.text()).includes("svc wrote: ok"));

  // --- 5. Opaque tokens, checked by introspection.
  await waitForPort(opaquePort);
  const opaque = await clientCredentials("notes:read", opaqueResource);
  check("the provider issued an opaque token for the second resource", opaque.split(".").length !== 3, opaque);
  {
    const client = new Client({ name: "auth-interop-opaque", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(opaqueResource), { requestInit: { headers: { authorization: `Bearer ${opaque}` } } }));
    const who = textOf(await client.callTool({ name: "whoami", arguments: {} }));
    check("introspection: whoami", who === "subject=svc client=svc scopes=notes:read", who);
    await client.close();
  }
  const opaqueBefore = await callsSoFar(opaque, opaqueResource);
  const opaqueOther = await clientCredentials("notes:read", `http://127.0.0.1:${opaquePort}/other`);
  for (const [what, token] of [
    ["an unknown token", "not-a-token-the-provider-issued"],
    ["a token for another resource", opaqueOther],
  ]) {
    const r = await fetch(opaqueResource, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify(initialize),
    });
    const h = r.headers.get("www-authenticate") ?? "";
    check(`introspection: ${what} gets 401 invalid_token`, r.status === 401 && h.startsWith('Bearer error="invalid_token"'), `${r.status} ${h}`);
  }
  check("introspection: no refused request reached a tool", (await callsSoFar(opaque, opaqueResource)) === opaqueBefore);

  // --- 6. Per-caller visibility (the second instance runs with --hide-unauthorized): a
  // token without notes:write does not see write_note, and calling it is an unknown tool.
  for (const [scope, shown] of [["notes:read", false], ["notes:read notes:write", true]]) {
    const token = await clientCredentials(scope, opaqueResource);
    const client = new Client({ name: "auth-interop-visibility", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(opaqueResource), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    check(`visibility: ${scope} ${shown ? "sees" : "does not see"} write_note`, names.includes("write_note") === shown && names.includes("whoami"), names.join(","));
    try {
      const r = await client.callTool({ name: "write_note", arguments: { text: "seen" } });
      check(`visibility: ${scope} calls write_note`, shown && textOf(r) === "svc wrote: seen", textOf(r));
    } catch (err) {
      check(`visibility: ${scope} gets write_note as an unknown tool (-32602, not 403)`, !shown && err.code === -32602 && String(err.message).includes("Unknown tool: write_note"), `${err.code} ${err.message}`);
    }
    await client.close();
  }
} catch (e) {
  check("auth interop ran to the end", false, e.stack ?? String(e));
} finally {
  if (!exited) server.kill();
  if (!opaqueExited) opaqueServer.kill();
  await as.close();
}

console.log(failures === 0 ? "auth interop: all passed" : `auth interop: ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);

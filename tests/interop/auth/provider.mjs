// An OpenID Connect / OAuth 2.1 authorization server for the auth interop test: the certified
// `oidc-provider` package on loopback, with resource indicators (RFC 8707: access tokens are
// JWTs whose `aud` is the requested resource), the client-credentials grant, and
// authorization code + PKCE. Interactions are automated (a test policy, not a real login):
// every login is `alice`, and consent grants what was asked.
import Provider from "oidc-provider";
import { generateKeyPairSync, randomUUID } from "node:crypto";

/** A private JWK (`kty`, key material, `kid`, `alg`, `use`) for a fresh key of `type`. */
export function privateJwk(type, alg, kid = randomUUID()) {
  const { privateKey } =
    type === "ec"
      ? generateKeyPairSync("ec", { namedCurve: "P-256" })
      : generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...privateKey.export({ format: "jwk" }), kid, alg, use: "sig" };
}

/**
 * Starts the provider on 127.0.0.1:`port`. `resourceBases` are the origins resource servers
 * live under (any resource indicator under one is a resource server with the `notes:*`
 * scopes); those under `opaqueBase` get opaque access tokens (checked by introspection),
 * the others JWTs. `redirectUri` is the public client's redirect URI. Returns the issuer, the ES256
 * signing key (so the test can forge tokens the way a compromised or confused issuer
 * would), `counts` (what the provider did, from its own events: `grant:<grant_type>` per
 * token endpoint success, `interaction:<prompt>` per login or consent started,
 * `registration` per dynamic client registration), and a `close()`.
 *
 * Options for the client end-to-end test (client.mjs): `registration` turns dynamic client
 * registration (RFC 7591) on; `offlineAccess` offers the `offline_access` scope (refresh
 * tokens); `accessTokenTTL` is the access tokens' lifetime in seconds (default 300);
 * `extraClients` are more pre-registered clients.
 */
export async function startProvider({
  port,
  resourceBases,
  opaqueBase = "http://opaque.invalid/",
  redirectUri,
  registration = false,
  offlineAccess = false,
  accessTokenTTL = 300,
  extraClients = [],
}) {
  const issuer = `http://127.0.0.1:${port}`;
  const signing = privateJwk("ec", "ES256", "es-1");
  const rsa = privateJwk("rsa", "RS256", "rs-1"); // for ID tokens (RS256 by default)
  const provider = new Provider(issuer, {
    jwks: { keys: [signing, rsa] },
    clients: [
      {
        client_id: "svc",
        client_secret: "svc-secret",
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        scope: "notes:read notes:write",
      },
      {
        client_id: "mcp-app",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: [redirectUri],
        scope: "notes:read notes:write",
      },
      {
        // The resource server itself, for token introspection only.
        client_id: "mcp-server",
        client_secret: "mcp-server-secret",
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
      ...extraClients,
    ],
    scopes: ["openid", ...(offlineAccess ? ["offline_access"] : []), "notes:read", "notes:write"],
    pkce: { required: () => true },
    ttl: { AccessToken: accessTokenTTL, ClientCredentials: accessTokenTTL, RefreshToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: registration },
      clientCredentials: { enabled: true },
      // Only the resource server may introspect.
      introspection: { enabled: true, allowedPolicy: async (_ctx, client) => client.clientId === "mcp-server" },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resourceIndicator) => {
          if (!resourceBases.some((base) => resourceIndicator.startsWith(base))) {
            throw new Error(`unknown resource ${resourceIndicator}`);
          }
          const info = { scope: "notes:read notes:write", audience: resourceIndicator, accessTokenTTL };
          return resourceIndicator.startsWith(opaqueBase)
            ? { ...info, accessTokenFormat: "opaque" }
            : { ...info, accessTokenFormat: "jwt", jwt: { sign: { alg: "ES256" } } };
        },
      },
    },
    interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });

  // The automated interaction: log in as alice, grant what was asked.
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith("/interaction/")) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    let result;
    if (details.prompt.name === "login") {
      result = { login: { accountId: "alice" } };
    } else {
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(" "));
      }
      result = { consent: { grantId: await grant.save() } };
    }
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
    ctx.redirect(to);
  });

  // What the provider did, counted from its own events (not from anyone's log lines).
  const counts = {};
  const count = (key) => (counts[key] = (counts[key] ?? 0) + 1);
  provider.on("grant.success", (ctx) => count(`grant:${ctx.oidc.params.grant_type}`));
  provider.on("interaction.started", (_ctx, prompt) => count(`interaction:${prompt.name}`));
  provider.on("registration_create.success", () => count("registration"));
  provider.on("grant.error", (ctx, error) => count(`grant-error:${ctx.oidc.params?.grant_type}:${error.error}`));

  const server = await new Promise((resolve, reject) => {
    const s = provider.listen(port, "127.0.0.1", () => resolve(s));
    s.on("error", reject);
  });
  return {
    issuer,
    signing,
    counts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

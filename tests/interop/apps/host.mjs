// A minimal MCP Apps host, in the browser: the official TypeScript SDK client talks to the
// tracksuit server (same origin, /mcp), the official app-bridge runs the tool's App in a
// sandboxed iframe. Bundled by run.mjs with esbuild.
//
// What it does:
// - finds the tool's App (`_meta.ui.resourceUri`), reads it (resources/read), mounts its HTML
//   in <iframe sandbox="allow-scripts" srcdoc> with a CSP built from `_meta.ui.csp`;
// - answers sampling itself (a built-in model: centre, else the first free cell);
// - forwards a keyed elicitation (`_meta["io.tracksuit/elicitation"].key`) to the App when
//   the App declared that key in ui/initialize (appCapabilities.experimental); any other
//   elicitation gets the generic form a host without Apps would show;
// - sends the App the tool input and result, and records everything in `window.__host`.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";

const KEY_META = "io.tracksuit/elicitation";
const state = (window.__host = {
  phase: "starting",
  forwarded: [],
  forms: 0,
  samples: 0,
  result: null,
  error: null,
  protocolVersion: null,
});
const log = (text) => {
  const line = document.createElement("div");
  line.textContent = text;
  document.getElementById("log").appendChild(line);
};

/** The built-in model: plays the centre if free, else the first free cell. */
function sample(params) {
  state.samples++;
  const text = params.messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : [m.content]))
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .pop() ?? "";
  const cells = (text.split("board=")[1] ?? ".........").split(/\s/)[0].replaceAll("|", "");
  const pick = cells[4] === "." ? 4 : Math.max(0, cells.indexOf("."));
  log(`model plays ${Math.floor(pick / 3)},${pick % 3}`);
  return { role: "assistant", model: "host-built-in", content: { type: "text", text: `${Math.floor(pick / 3)},${pick % 3}` } };
}

/** What a host without Apps shows: a form built from requestedSchema. */
function form(params) {
  state.forms++;
  return new Promise((resolve) => {
    const box = document.getElementById("form");
    box.replaceChildren();
    const title = document.createElement("p");
    title.textContent = params.message;
    box.appendChild(title);
    const inputs = {};
    for (const [name, prop] of Object.entries(params.requestedSchema?.properties ?? {})) {
      const label = document.createElement("label");
      label.textContent = `${prop.title ?? name} `;
      const input = document.createElement("input");
      input.name = name;
      input.type = prop.type === "integer" || prop.type === "number" ? "number" : "text";
      label.appendChild(input);
      box.appendChild(label);
      inputs[name] = [input, prop];
    }
    const submit = document.createElement("button");
    submit.id = "form-submit";
    submit.textContent = "Submit";
    submit.onclick = () => {
      const content = {};
      for (const [name, [input, prop]] of Object.entries(inputs)) {
        content[name] = prop.type === "integer" || prop.type === "number" ? Number(input.value) : input.value;
      }
      box.replaceChildren();
      resolve({ action: "accept", content });
    };
    box.appendChild(submit);
  });
}

async function main() {
  // ?version=2026-07-28 pins the modern era (questions travel as input_required rounds);
  // otherwise the SDK's default handshake (2025-11-25, questions as server requests).
  const version = new URLSearchParams(location.search).get("version");
  const options = {
    capabilities: { elicitation: { form: {} }, sampling: {}, extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
  };
  if (version === "2026-07-28") options.versionNegotiation = { mode: { pin: version } };
  const client = new Client({ name: "tracksuit-apps-host", version: "1.0.0" }, options);
  let bridge = null;
  let appReady = false;
  client.setRequestHandler("sampling/createMessage", (request) => sample(request.params));
  client.setRequestHandler("elicitation/create", async (request) => {
    const params = request.params;
    const key = params?._meta?.[KEY_META]?.key;
    const keys = bridge?.getAppCapabilities()?.experimental?.[KEY_META]?.keys ?? [];
    if (appReady && key && keys.includes(key)) {
      state.forwarded.push({ key, context: params._meta[KEY_META].context });
      log(`${key} → the App`);
      return bridge.request({ method: "elicitation/create", params }, { timeout: 120000 });
    }
    log(`elicitation (${key ?? "unkeyed"}) → the generic form`);
    return form(params);
  });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", location.href));
  await client.connect(transport);
  state.protocolVersion = transport.protocolVersion ?? version ?? null;
  log(`connected to ${client.getServerVersion?.()?.name} (protocol ${state.protocolVersion ?? "?"})`);

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "tictactoe");
  const uri = getToolUiResourceUri(tool);
  const { contents } = await client.readResource({ uri });
  const app = contents[0];
  state.appMime = app.mimeType;
  log(`${tool.name} → App ${uri} (${app.mimeType})`);

  const csp = app._meta?.ui?.csp ?? {};
  const list = (xs) => (xs ?? []).join(" ");
  const policy = [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `style-src 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `img-src data: ${list(csp.resourceDomains)}`,
    `connect-src ${list(csp.connectDomains) || "'none'"}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
  ].join("; ");
  const html = app.text.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${policy}">`);
  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.srcdoc = html;
  document.getElementById("frame").appendChild(iframe);
  await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));

  bridge = new AppBridge(client, { name: "tracksuit-apps-host", version: "1.0.0" }, { serverTools: {}, logging: {} });
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  await initialized;
  appReady = true;
  state.appInfo = bridge.getAppVersion();
  state.phase = "app-ready";
  log(`App ${state.appInfo?.name} initialized; it answers ${JSON.stringify(bridge.getAppCapabilities()?.experimental?.[KEY_META]?.keys)}`);

  await bridge.sendToolInput({ arguments: {} });
  state.phase = "playing";
  const result = await client.callTool({ name: "tictactoe", arguments: {} }, { timeout: 300000 });
  await bridge.sendToolResult(result);
  state.result = result.structuredContent ?? null;
  state.isError = result.isError ?? false;
  state.phase = "done";
  log(`server reports: ${JSON.stringify(result.structuredContent)}`);
}

main().catch((e) => {
  state.error = String(e?.stack ?? e);
  state.phase = "failed";
  log(`failed: ${e}`);
});

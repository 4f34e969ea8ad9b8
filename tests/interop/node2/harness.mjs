// Shared pieces of the 2026-07-28 interop scripts: PASS/FAIL reporting, the server target
// from the command line, and a TypeScript SDK v2 client whose transport is tapped so a test
// can count MRTR rounds and dump the wire when something fails.
//
// Every script takes the server the same way (run.sh starts it):
//   node X.mjs --url http://127.0.0.1:PORT/mcp     Streamable HTTP
//   node X.mjs --stdio /path/to/binary             stdio (the client spawns `binary --stdio`)
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { writeFileSync } from "node:fs";

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";

let failures = 0;
let dumps = 0;
let passes = 0;

/** Records one check. */
export function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  if (ok) passes++;
  else failures++;
  return ok;
}

/** The text blocks of a tool result, concatenated. */
export const textOf = (r) =>
  (r?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

/** The content blocks of a sampling message (a single block or an array). */
export const blocksOf = (m) => (Array.isArray(m?.content) ? m.content : m?.content ? [m.content] : []);

/** `{ label, url }` or `{ label, command }` from `--url URL` / `--stdio BINARY`. */
export function target(script) {
  const [flag, value] = process.argv.slice(2);
  if (flag === "--url" && value) return { label: "http", url: value };
  if (flag === "--stdio" && value) return { label: "stdio", command: value };
  console.error(`usage: node ${script} --url http://127.0.0.1:PORT/mcp | --stdio <server-binary>`);
  process.exit(2);
}

function newTransport(t) {
  return t.url
    ? new StreamableHTTPClientTransport(new URL(t.url))
    : new StdioClientTransport({ command: t.command, args: ["--stdio"], stderr: "inherit" });
}

/**
 * Everything the client sent and received on its own transport, in order. (On stdio the
 * TS client sends `server/discover` to a short-lived sibling process on a transport of its
 * own, so that probe is not in here.)
 */
function tap(transport) {
  const wire = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    wire.push({ dir: "->", t: Date.now(), message });
    return send(message, options);
  };
  let handler;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => handler,
    set: (fn) => {
      handler = fn && ((message, extra) => {
        wire.push({ dir: "<-", t: Date.now(), message });
        return fn(message, extra);
      });
    },
  });
  return wire;
}

/** The `tools/call` requests sent for tool `name` since wire index `from`. */
export function callsOf(wire, name, from = 0) {
  return wire.slice(from).filter((w) => w.dir === "->" && w.message.method === "tools/call" && w.message.params?.name === name);
}

/** The results received since wire index `from` whose `resultType` is `input_required`. */
export function inputRequiredSince(wire, from = 0) {
  return wire.slice(from).filter((w) => w.dir === "<-" && w.message.result?.resultType === "input_required");
}

/**
 * A connected v2 client. `version`: "2026-07-28" pins the modern era (server/discover, no
 * fallback), "2025-11-25" leaves the SDK on its default legacy `initialize` handshake.
 * `handlers`: `{ elicit, sample }` functions for `elicitation/create` and
 * `sampling/createMessage`. Returns `{ client, wire, dump }`.
 */
export async function connect(t, { version = MODERN, handlers = {}, maxRounds, capabilities } = {}) {
  const options = {
    capabilities: capabilities ?? { elicitation: { form: {} }, sampling: {} },
  };
  if (version === MODERN) options.versionNegotiation = { mode: { pin: MODERN } };
  if (maxRounds !== undefined) options.inputRequired = { maxRounds };
  const client = new Client({ name: "tracksuit-interop-node2", version: "1.0.0" }, options);
  if (handlers.elicit) client.setRequestHandler("elicitation/create", (request) => handlers.elicit(request.params));
  if (handlers.sample) client.setRequestHandler("sampling/createMessage", (request) => handlers.sample(request.params));
  const transport = newTransport(t);
  const wire = tap(transport);
  await client.connect(transport);
  const dump = (name) => {
    const file = `${process.env.WIRE_DIR ?? "/tmp"}/node2-${name}-${t.label}-${process.pid}-${++dumps}.json`;
    writeFileSync(file, JSON.stringify(wire, null, 2));
    return file;
  };
  return { client, wire, dump };
}

/** Prints the tally and exits non-zero on any failed check. */
export function finish(script, label) {
  console.log(
    failures === 0
      ? `node2 ${script} (${label}): ${passes} passed, 0 failed`
      : `node2 ${script} (${label}): ${passes} passed, ${failures} failed`,
  );
  process.exit(failures === 0 ? 0 : 1);
}

/** Runs `main`, turning an unexpected exception into a failed check, then finishes. */
export async function run(script, label, main) {
  try {
    await main();
  } catch (e) {
    check("no unexpected exception", false, e?.stack ?? String(e));
  }
  finish(script, label);
}

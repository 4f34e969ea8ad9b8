// `cargo tracksuit dev` with the TypeScript SDK v2 client pinned to 2026-07-28: stateless
// requests, list changes on a `subscriptions/listen` stream; one connection through
// rebuilds and restarts (tests/interop/devloop/scenario.mjs).
// Usage (scripts/dev-loop.sh runs it):
//   node devloop.mjs stdio <cargo-tracksuit> <scratch crate dir> <tmux pane>   the client starts `cargo tracksuit dev`
//   node devloop.mjs http <url> <scratch crate dir> <tmux pane>                `cargo tracksuit dev --port` runs in the pane
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { check, devLoop, failures } from "../devloop/scenario.mjs";

const [mode, target, crate, pane] = process.argv.slice(2);
if (!pane || !["stdio", "http"].includes(mode)) {
  console.error("usage: node devloop.mjs stdio|http <cargo-tracksuit>|<url> <scratch crate dir> <tmux pane>");
  process.exit(2);
}
const transport =
  mode === "http"
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({
        command: target,
        args: ["tracksuit", "dev", "--manifest-path", `${crate}/Cargo.toml`],
        stderr: "inherit",
        // The SDK passes only a few variables by default; CARGO_TARGET_DIR must reach cargo.
        env: { ...process.env },
      });
const client = new Client(
  { name: "devloop-2026", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
let changes = 0;
client.setNotificationHandler("notifications/tools/list_changed", () => {
  changes++;
});
let subscription;
let ended = null;
try {
  await client.connect(transport);
  const pid = transport.pid;
  subscription = await client.listen({ toolsListChanged: true });
  subscription.closed?.then((how) => (ended = how ?? "ended"));
  check(`a 2026-07-28 subscription to tool list changes over ${mode}`, subscription.honoredFilter?.toolsListChanged === true);
  await devLoop({
    session: {
      listTools: async () => (await client.listTools()).tools,
      callTool: (name, args) => client.callTool({ name, arguments: args }),
      changes: () => changes,
    },
    check,
    source: `${crate}/src/main.rs`,
    pane,
  });
  check("one connection throughout (same process, the subscription still open)", transport.pid === pid && ended === null, String(ended));
} catch (e) {
  check("no unexpected exception", false, e?.stack ?? String(e));
} finally {
  await subscription?.close().catch(() => {});
  await client.close().catch(() => {});
}
console.log(`devloop 2026-07-28 over ${mode}: ${failures() === 0 ? "all passed" : `${failures()} failed`}`);
process.exit(failures() === 0 ? 0 : 1);

// `cargo tracksuit dev` with the TypeScript SDK v1 client in a 2025-11-25 session: one
// connection through rebuilds and restarts (tests/interop/devloop/scenario.mjs).
// Usage (scripts/dev-loop.sh runs it):
//   node devloop.mjs stdio <cargo-tracksuit> <scratch crate dir> <tmux pane>   the client starts `cargo tracksuit dev`
//   node devloop.mjs http <url> <scratch crate dir> <tmux pane>                `cargo tracksuit dev --port` runs in the pane
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
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
        // Its stderr (cargo's output, the compiler's errors) on the terminal.
        stderr: "inherit",
        // The SDK passes only a few variables by default; CARGO_TARGET_DIR (the shared
        // target directory) must reach cargo.
        env: { ...process.env },
      });
// The same process (stdio) or the same session (HTTP) from start to end.
const identity = () => (mode === "http" ? transport.sessionId : transport.pid);
const client = new Client({ name: "devloop-2025", version: "1.0.0" });
let changes = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changes++;
});
try {
  await client.connect(transport);
  const first = identity();
  check(`a 2025-11-25 session over ${mode}`, client.getServerCapabilities()?.tools?.listChanged === true && !!first);
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
  check("one connection throughout (never reconnected)", identity() === first, String(first));
} catch (e) {
  check("no unexpected exception", false, e?.stack ?? String(e));
} finally {
  await client.close().catch(() => {});
}
console.log(`devloop 2025-11-25 over ${mode}: ${failures() === 0 ? "all passed" : `${failures()} failed`}`);
process.exit(failures() === 0 ? 0 : 1);

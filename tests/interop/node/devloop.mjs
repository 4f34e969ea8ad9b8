// `cargo tracksuit dev` with the TypeScript SDK v1 client in a 2025-11-25 session: one
// connection through rebuilds and restarts (tests/interop/devloop/scenario.mjs).
// Usage (scripts/dev-loop.sh runs it inside tmux): node devloop.mjs <cargo-tracksuit> <scratch crate dir> <tmux pane>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, devLoop, failures } from "../devloop/scenario.mjs";

const [bin, crate, pane] = process.argv.slice(2);
if (!pane) {
  console.error("usage: node devloop.mjs <cargo-tracksuit> <scratch crate dir> <tmux pane>");
  process.exit(2);
}
// The client starts `cargo tracksuit dev` as its stdio server; its stderr (cargo's output,
// the compiler's errors) goes to the terminal.
const transport = new StdioClientTransport({
  command: bin,
  args: ["tracksuit", "dev", "--manifest-path", `${crate}/Cargo.toml`],
  stderr: "inherit",
  // The SDK passes only a few variables by default; CARGO_TARGET_DIR (the shared target
  // directory) must reach cargo.
  env: { ...process.env },
});
const client = new Client({ name: "devloop-2025", version: "1.0.0" });
let changes = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changes++;
});
try {
  await client.connect(transport);
  const pid = transport.pid;
  check("a 2025-11-25 session", client.getServerCapabilities()?.tools?.listChanged === true);
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
  check("one connection throughout (same process, never reconnected)", transport.pid === pid);
} catch (e) {
  check("no unexpected exception", false, e?.stack ?? String(e));
} finally {
  await client.close().catch(() => {});
}
console.log(`devloop 2025-11-25: ${failures() === 0 ? "all passed" : `${failures()} failed`}`);
process.exit(failures() === 0 ? 0 : 1);

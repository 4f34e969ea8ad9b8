// Shared pieces of the interop scripts: PASS/FAIL reporting, and running a scenario over
// stdio and over Streamable HTTP against a server binary the script starts itself.
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import net from "node:net";

let failures = 0;

/** Records one check. */
export function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  if (!ok) failures++;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The text blocks of a tool result, concatenated. */
export const textOf = (r) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Waits until something listens on `port`. */
export async function waitForPort(port) {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((r) => {
      const s = net.connect(port, "127.0.0.1", () => (s.end(), r(true)));
      s.on("error", () => r(false));
    });
    if (up) return;
    await sleep(100);
  }
  throw new Error(`server did not listen on ${port}`);
}

/**
 * Runs `scenario(label, session)` over stdio, then over HTTP. `connect(transport, label)`
 * makes the client (and whatever the scenario needs) and returns an object with `client`.
 * Then runs `more()` if given (scenarios that manage their own servers). Exits the process
 * with the tally.
 */
export async function overBothTransports(name, binary, connect, scenario, more = async () => {}) {
  if (!binary) {
    console.error(`usage: node ${name}.mjs <server-binary>`);
    process.exit(2);
  }
  try {
    {
      const session = await connect(new StdioClientTransport({ command: binary, args: ["--stdio"], stderr: "inherit" }), "stdio");
      await scenario("stdio", session);
      await session.client.close();
    }
    {
      const port = await freePort();
      const server = spawn(binary, ["--port", String(port)], { stdio: ["ignore", "inherit", "inherit"] });
      try {
        await waitForPort(port);
        const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
        const session = await connect(transport, "http");
        await scenario("http", { ...session, transport });
        await session.client.close();
      } finally {
        server.kill();
      }
    }
    await more();
  } catch (e) {
    check("no unexpected exception", false, e?.stack ?? String(e));
  }
  console.log(failures === 0 ? `node ${name} interop: all checks passed` : `node ${name} interop: ${failures} check(s) failed`);
  process.exit(failures === 0 ? 0 : 1);
}

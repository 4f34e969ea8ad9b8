// Drives a tracksuit server with the official TypeScript SDK client over stdio and
// Streamable HTTP: tools, sampling, elicitation, progress, logging and cancellation.
// Usage: node client.mjs <path-to-conformance-binary>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { spawn } from "node:child_process";
import net from "node:net";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node client.mjs <conformance-binary>");
  process.exit(2);
}

let failures = 0;
function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  if (!ok) failures++;
}

function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForPort(port) {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.end();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`server did not listen on ${port}`);
}

function newClient(samplingCalls, logs) {
  const client = new Client(
    { name: "tracksuit-interop-ts", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    samplingCalls.push(request.params);
    return {
      role: "assistant",
      content: { type: "text", text: "scripted model reply" },
      model: "scripted-model",
      stopReason: "endTurn",
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => ({
    action: "accept",
    content: { username: "octocat", email: "octo@example.com" },
  }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  return client;
}

async function exercise(label, client, samplingCalls, logs) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const expected of ["test_simple_text", "test_sampling", "test_elicitation", "test_tool_with_progress", "test_tool_with_logging", "wait_for_cancel", "cancelled_count"]) {
    check(`${label}: tools/list has ${expected}`, names.includes(expected));
  }

  const simple = await client.callTool({ name: "test_simple_text", arguments: {} });
  check(`${label}: simple text`, textOf(simple) === "This is a simple text response for testing.", textOf(simple));

  const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "What is 2+2?" } });
  const call = samplingCalls.at(-1);
  check(`${label}: sampling request reached the client`, call?.messages?.[0]?.content?.text === "What is 2+2?" && call?.maxTokens === 100, JSON.stringify(call));
  check(`${label}: sampling reply reached the tool`, textOf(sampled) === "LLM response: scripted model reply", textOf(sampled));

  const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  check(`${label}: elicitation accepted`, textOf(elicited).includes("action=accept") && textOf(elicited).includes("octocat"), textOf(elicited));

  const progress = [];
  await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p),
  });
  const values = progress.map((p) => p.progress);
  // The SDK dispatches progress notifications on a microtask but responses synchronously,
  // so over stdio a final notification that shares a read chunk with the response is
  // dropped by the client before its handler runs. Every notification it does deliver
  // must be in order and carry the total; over HTTP (one SSE event per chunk) all three
  // must arrive.
  const expected = label === "http" ? 3 : 2;
  check(`${label}: progress notifications`, values.length >= expected && values[0] === 0 && values.every((v, i) => i === 0 || v > values[i - 1]) && progress.every((p) => p.total === 100), JSON.stringify(values));

  const before = logs.length;
  await client.callTool({ name: "test_tool_with_logging", arguments: {} });
  const got = logs.slice(before).map((l) => l.data);
  check(`${label}: log notifications`, got.length === 3 && got[0] === "Tool execution started" && got[2] === "Tool execution completed", JSON.stringify(got));

  const countBefore = Number(textOf(await client.callTool({ name: "cancelled_count", arguments: {} })));
  const controller = new AbortController();
  const pending = client.callTool({ name: "wait_for_cancel", arguments: {} }, undefined, { signal: controller.signal });
  await sleep(300);
  controller.abort("interop test cancels");
  let rejected = false;
  try {
    await pending;
  } catch {
    rejected = true;
  }
  check(`${label}: cancelled call rejects on the client`, rejected);
  let countAfter = countBefore;
  for (let i = 0; i < 50 && countAfter === countBefore; i++) {
    await sleep(50);
    countAfter = Number(textOf(await client.callTool({ name: "cancelled_count", arguments: {} })));
  }
  check(`${label}: server dropped the cancelled call`, countAfter === countBefore + 1, `${countBefore} -> ${countAfter}`);
  const again = await client.callTool({ name: "test_simple_text", arguments: {} });
  check(`${label}: still serving after cancel`, textOf(again).length > 0);
}

async function overStdio() {
  const samplingCalls = [];
  const logs = [];
  const client = newClient(samplingCalls, logs);
  const transport = new StdioClientTransport({ command: binary, args: ["--stdio"], stderr: "inherit" });
  await client.connect(transport);
  check("stdio: negotiated 2025-11-25", client.getServerVersion()?.name === "tracksuit-conformance");
  await exercise("stdio", client, samplingCalls, logs);
  await client.close();
}

async function overHttp() {
  const port = await freePort();
  const server = spawn(binary, ["--port", String(port)], { stdio: ["ignore", "inherit", "inherit"] });
  try {
    await waitForPort(port);
    const samplingCalls = [];
    const logs = [];
    const client = newClient(samplingCalls, logs);
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    await client.connect(transport);
    check("http: session id assigned", typeof transport.sessionId === "string" && transport.sessionId.length > 0);
    await exercise("http", client, samplingCalls, logs);
    await transport.terminateSession();
    await client.close();
  } finally {
    server.kill();
  }
}

try {
  await overStdio();
  await overHttp();
} catch (e) {
  check("no unexpected exception", false, e?.stack ?? String(e));
}
console.log(failures === 0 ? "node interop: all checks passed" : `node interop: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);

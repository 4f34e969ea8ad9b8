// Tasks against the official TypeScript SDK client's task API (client.experimental.tasks):
// task-augmented tools/call with polling and results, input_required with an elicitation
// tagged with the task, cancellation withdrawing a task's branches, failed tasks, listing;
// then a server restart between tools/call and tasks/result (SQLite store), and raw
// JSON-RPC over HTTP for the error cases. Usage: node tasks.mjs <path-to-tasks-binary>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { check, freePort, overBothTransports, sleep, textOf } from "./harness.mjs";

const binary = process.argv[2];
const RELATED = "io.modelcontextprotocol/related-task";

async function connect(transport) {
  const seen = { elicitations: [], samplings: [], aborted: 0, statuses: [], hold: false };
  const client = new Client(
    { name: "tracksuit-tasks-interop", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} }, sampling: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    seen.elicitations.push(request.params);
    return { action: "accept", content: { approve: true } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    seen.samplings.push(request.params);
    if (seen.hold) {
      // Wait until the server withdraws the request (notifications/cancelled).
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
      seen.aborted++;
      throw new Error("withdrawn");
    }
    return { role: "assistant", model: "m", content: { type: "text", text: "yes" } };
  });
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => seen.statuses.push(n.params));
  await client.connect(transport);
  return { client, seen };
}

async function collect(stream) {
  const messages = [];
  for await (const m of stream) messages.push(m);
  return messages;
}

async function errorOf(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return e;
  }
}

async function scenarios(label, { client, seen }) {
  const caps = client.getServerCapabilities();
  check(`${label}: tasks capability`, JSON.stringify(caps.tasks) === JSON.stringify({ list: {}, cancel: {}, requests: { tools: { call: {} } } }), JSON.stringify(caps.tasks));
  const { tools } = await client.listTools();
  const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
  check(`${label}: execution.taskSupport published`, support.crunch === "optional" && support.nightly_report === "required", JSON.stringify(support));

  // A task-augmented call: created at once, polled, result fetched.
  let messages = await collect(client.experimental.tasks.callToolStream({ name: "crunch", arguments: { n: 5, ms_per_step: 20 } }, CallToolResultSchema, { task: { ttl: 60000 } }));
  const created = messages.find((m) => m.type === "taskCreated")?.task;
  const result = messages.at(-1);
  check(`${label}: taskCreated first, working, with ttl and pollInterval`, messages[0].type === "taskCreated" && created.status === "working" && created.ttl === 60000 && created.pollInterval === 100, JSON.stringify(messages[0]));
  check(`${label}: polled status then the result`, messages.some((m) => m.type === "taskStatus") && result.type === "result" && result.result.structuredContent?.sum === 15, JSON.stringify(result));
  check(`${label}: the result names its task`, result.result._meta?.[RELATED]?.taskId === created.taskId, JSON.stringify(result.result._meta));
  const got = await client.experimental.tasks.getTask(created.taskId);
  check(`${label}: tasks/get says completed`, got.status === "completed" && got.createdAt === created.createdAt && typeof got.lastUpdatedAt === "string", JSON.stringify(got));

  // A required tool: the SDK sends it as a task; sent without one, the server refuses.
  messages = await collect(client.experimental.tasks.callToolStream({ name: "nightly_report", arguments: {} }));
  check(`${label}: required tool runs as a task`, messages.at(-1).type === "result" && textOf(messages.at(-1).result) === "all 3 jobs succeeded", JSON.stringify(messages.at(-1)));
  let e = await errorOf(client.request({ method: "tools/call", params: { name: "nightly_report", arguments: {} } }, CallToolResultSchema));
  check(`${label}: required tool without a task is -32601`, e?.code === -32601, String(e));

  // input_required: the elicitation carries the task id; the task then completes.
  messages = await collect(client.experimental.tasks.callToolStream({ name: "deploy", arguments: { service: "api" } }, CallToolResultSchema, { task: { ttl: 60000 } }));
  const deployId = messages[0].task?.taskId;
  const asked = seen.elicitations.at(-1);
  check(`${label}: elicitation tagged with the task`, asked?._meta?.[RELATED]?.taskId === deployId && asked.message === "Deploy api?", JSON.stringify(asked));
  check(`${label}: approved deploy completes`, messages.at(-1).type === "result" && textOf(messages.at(-1).result) === "deployed api", JSON.stringify(messages.at(-1)));
  // Over Streamable HTTP the three notifications may travel on different streams (the
  // standalone GET stream while no tasks/result is pending, then the tasks/result stream), and
  // two connections do not keep order between them: wait for all three, then check the order
  // the server emitted them in (lastUpdatedAt) rather than the order they arrived.
  const deployStatuses = () => seen.statuses.filter((s) => s.taskId === deployId);
  for (let i = 0; i < 200 && deployStatuses().length < 3; i++) await sleep(25);
  const order = { input_required: 0, working: 1, completed: 2 };
  const emitted = deployStatuses().slice().sort((a, b) => order[a.status] - order[b.status]);
  const walk = emitted.map((s) => s.status);
  const times = emitted.map((s) => Date.parse(s.lastUpdatedAt));
  const monotone = times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]));
  check(`${label}: notifications/tasks/status walked input_required → working → completed`, JSON.stringify(walk) === JSON.stringify(["input_required", "working", "completed"]) && monotone, JSON.stringify(deployStatuses()));

  // A failing tool: the task fails, its result is the tool's isError result.
  messages = await collect(client.experimental.tasks.callToolStream({ name: "flaky", arguments: {} }, CallToolResultSchema, { task: {} }));
  const flakyId = messages[0].task?.taskId;
  const failed = await client.experimental.tasks.getTask(flakyId);
  check(`${label}: failed task with a status message`, messages.at(-1).type === "error" && failed.status === "failed" && failed.statusMessage === "upstream timed out", JSON.stringify(failed));
  const failedResult = await client.experimental.tasks.getTaskResult(flakyId, CallToolResultSchema);
  check(`${label}: tasks/result of a failed tool task is its isError result`, failedResult.isError === true && textOf(failedResult) === "upstream timed out", JSON.stringify(failedResult));

  // Cancelling a task withdraws its branches' sampling requests.
  seen.hold = true;
  const before = seen.samplings.length;
  const debate = await client.request({ method: "tools/call", params: { name: "debate", arguments: { topic: "tabs" }, task: { ttl: 60000 } } }, CreateTaskResultSchema);
  for (let i = 0; i < 100 && seen.samplings.length < before + 2; i++) await sleep(20);
  const debateId = debate.task.taskId;
  check(`${label}: both branches sample, tagged with the task`, seen.samplings.length === before + 2 && seen.samplings.slice(before).every((s) => s._meta?.[RELATED]?.taskId === debateId), JSON.stringify(seen.samplings.slice(before).map((s) => s._meta)));
  const cancelled = await client.experimental.tasks.cancelTask(debateId);
  for (let i = 0; i < 100 && seen.aborted < 2; i++) await sleep(20);
  check(`${label}: tasks/cancel → cancelled, both branches withdrawn`, cancelled.status === "cancelled" && seen.aborted === 2, `${JSON.stringify(cancelled)} aborted=${seen.aborted}`);
  seen.hold = false;
  e = await errorOf(client.experimental.tasks.getTaskResult(debateId, CallToolResultSchema));
  check(`${label}: tasks/result of a cancelled task is -32602`, e?.code === -32602, String(e));
  e = await errorOf(client.experimental.tasks.cancelTask(debateId));
  check(`${label}: cancelling it again is -32602`, e?.code === -32602 && /terminal status 'cancelled'/.test(e.message), String(e));
  e = await errorOf(client.experimental.tasks.cancelTask(created.taskId));
  check(`${label}: cancelling a completed task is -32602`, e?.code === -32602 && /'completed'/.test(e.message), String(e));
  e = await errorOf(client.experimental.tasks.getTask("no-such-task"));
  check(`${label}: unknown task id is -32602`, e?.code === -32602, String(e));

  const listed = await client.experimental.tasks.listTasks();
  const ids = new Set(listed.tasks.map((t) => t.taskId));
  check(`${label}: tasks/list shows them`, [created.taskId, deployId, flakyId, debateId].every((id) => ids.has(id)), `${listed.tasks.length} tasks`);
}

/** A finished result survives a server restart; a task that was running is failed. */
async function restart() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tracksuit-tasks-"));
  const db = path.join(dir, "tasks.db");
  const start = async () => {
    const { client } = await connect(new StdioClientTransport({ command: binary, args: ["--stdio", "--task-db", db], stderr: "inherit" }));
    return client;
  };
  let client = await start();
  const done = await client.request({ method: "tools/call", params: { name: "crunch", arguments: { n: 3, ms_per_step: 1 }, task: { ttl: 600000 } } }, CreateTaskResultSchema);
  let status;
  for (let i = 0; i < 100; i++) {
    status = (await client.experimental.tasks.getTask(done.task.taskId)).status;
    if (status === "completed") break;
    await sleep(20);
  }
  const running = await client.request({ method: "tools/call", params: { name: "crunch", arguments: { n: 1000, ms_per_step: 100 }, task: { ttl: 600000 } } }, CreateTaskResultSchema);
  check("restart: first task completed before the restart", status === "completed", status);
  await client.close(); // the server process exits with its stdin

  client = await start();
  const r = await client.experimental.tasks.getTaskResult(done.task.taskId, CallToolResultSchema);
  check("restart: tasks/result after the restart returns the stored result", r.structuredContent?.sum === 6 && r._meta?.[RELATED]?.taskId === done.task.taskId, JSON.stringify(r));
  const orphan = await client.experimental.tasks.getTask(running.task.taskId);
  check("restart: a task that was running is failed, with the reason", orphan.status === "failed" && /server stopped/.test(orphan.statusMessage ?? ""), JSON.stringify(orphan));
  const e = await errorOf(client.experimental.tasks.getTaskResult(running.task.taskId, CallToolResultSchema));
  check("restart: its tasks/result is a JSON-RPC error", e?.code === -32603, String(e));
  const listed = await client.experimental.tasks.listTasks();
  check("restart: tasks/list still lists both", listed.tasks.length === 2, JSON.stringify(listed.tasks.map((t) => t.status)));
  await client.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Raw JSON-RPC over Streamable HTTP: the error cases, byte for byte. */
async function raw() {
  const port = await freePort();
  const server = spawn(binary, ["--port", String(port)], { stdio: ["ignore", "inherit", "inherit"] });
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    let session;
    const post = async (body) => {
      for (let i = 0; i < 100; i++) {
        try {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}) },
            body: JSON.stringify(body),
          });
          session ??= res.headers.get("mcp-session-id");
          const text = await res.text();
          if (!body.id) return { status: res.status };
          const data = text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6).map((l) => JSON.parse(l.slice(6)));
          return (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : data.find((m) => m.id === body.id);
        } catch (e) {
          if (e?.cause?.code !== "ECONNREFUSED") throw e;
          await sleep(100);
        }
      }
      throw new Error("server did not start");
    };
    let id = 0;
    const call = (method, params) => post({ jsonrpc: "2.0", id: ++id, method, params });
    await call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
    await post({ jsonrpc: "2.0", method: "notifications/initialized" });

    let r = await call("tools/call", { name: "nightly_report", arguments: {}, task: { ttl: 5000 } });
    const taskId = r.result?.task?.taskId;
    check("raw: CreateTaskResult", r.result?.task?.status === "working" && r.result.task.ttl === 5000 && /^[0-9a-f-]{36}$/.test(taskId), JSON.stringify(r));
    r = await call("tasks/result", { taskId });
    check("raw: tasks/result blocks, then the tool result", r.result?.content?.[0]?.text === "all 3 jobs succeeded" && r.result._meta?.[RELATED]?.taskId === taskId, JSON.stringify(r));
    r = await call("tasks/cancel", { taskId });
    check("raw: cancelling a finished task → -32602", r.error?.code === -32602 && r.error.message.includes("'completed'"), JSON.stringify(r));
    r = await call("tasks/get", { taskId: "f00" });
    check("raw: unknown task id → -32602", r.error?.code === -32602 && r.error.message.includes("Task not found"), JSON.stringify(r));
    r = await call("tasks/result", { taskId: "f00" });
    check("raw: tasks/result of an unknown task → -32602", r.error?.code === -32602, JSON.stringify(r));
    r = await call("tasks/get", {});
    check("raw: tasks/get without taskId → -32602", r.error?.code === -32602, JSON.stringify(r));
    r = await call("tasks/list", { cursor: "###" });
    check("raw: tasks/list with a bad cursor → -32602", r.error?.code === -32602, JSON.stringify(r));
    r = await call("tools/call", { name: "crunch", arguments: { n: 1000, ms_per_step: 50 }, task: {} });
    const slow = r.result?.task?.taskId;
    r = await call("tasks/cancel", { taskId: slow });
    check("raw: cancel a running task → the task, cancelled", r.result?.taskId === slow && r.result.status === "cancelled", JSON.stringify(r));
    r = await call("tasks/result", { taskId: slow });
    check("raw: tasks/result of a cancelled task → -32602", r.error?.code === -32602 && r.error.message.includes("cancelled"), JSON.stringify(r));
    r = await call("tools/call", { name: "nightly_report", arguments: {} });
    check("raw: required tool without task → -32601", r.error?.code === -32601, JSON.stringify(r));
    r = await call("tools/call", { name: "crunch", arguments: { n: "many", ms_per_step: 0 }, task: {} });
    const bad = r.result?.task?.taskId;
    r = await call("tasks/result", { taskId: bad });
    check("raw: bad arguments in a task → its result is isError (SEP-1303)", r.result?.isError === true, JSON.stringify(r));
    r = await call("ping", {});
    check("raw: the server still serves", JSON.stringify(r.result) === "{}", JSON.stringify(r));
  } finally {
    server.kill();
  }
}

await overBothTransports("tasks", binary, connect, scenarios, async () => {
  await restart();
  await raw();
});

// Complete tic-tac-toe games against the official TypeScript SDK client: a scripted user
// in its elicitation handler, a scripted model in its sampling handler. Asserts the model's
// last turn sees every earlier move as MCP content blocks; then cancels a strategist game
// while two branches are sampling and asserts no sampling request follows the cancel and
// the server's in-flight count returns to zero. stdio and HTTP.
// Usage: node tictactoe.mjs <path-to-tictactoe-binary>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, overBothTransports, sleep, textOf } from "./harness.mjs";

const binary = process.argv[2];

const boardOf = (text) => (text.split("board=")[1] ?? "").split(/\s/)[0].replaceAll("|", "");
const lastText = (params) => {
  const m = params.messages.at(-1);
  const blocks = Array.isArray(m.content) ? m.content : [m.content];
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("");
};

async function connect(transport, opts) {
  const seen = { sampling: [], elicitations: 0, hang: false, badMoves: 0 };
  const client = new Client({ name: "tracksuit-tictactoe-interop", version: "1.0.0" }, { capabilities: { sampling: { tools: {} }, elicitation: { form: {} } } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const p = request.params;
    seen.sampling.push(p);
    if (seen.hang) return new Promise(() => {});
    const cells = boardOf(lastText(p)).split("");
    const pick = cells[4] === "." ? 4 : cells.indexOf(".");
    const tools = (p.tools ?? []).map((t) => t.name);
    if (seen.badMoves > 0 && !tools.length) {
      // A model that first answers off the board, then a taken cell.
      seen.badMoves--;
      const taken = cells.indexOf("X") >= 0 ? cells.indexOf("X") : cells.indexOf("O");
      const text = seen.badMoves === 1 || taken < 0 ? "9,9" : `${Math.floor(taken / 3)},${taken % 3}`;
      return { role: "assistant", model: "scripted", stopReason: "endTurn", content: { type: "text", text } };
    }
    if (tools.includes("__schema__")) {
      return { role: "assistant", model: "scripted", stopReason: "toolUse", content: [{ type: "tool_use", id: `s${seen.sampling.length}`, name: "__schema__", input: { row: Math.floor(pick / 3), col: pick % 3 } }] };
    }
    if (tools.length) {
      return { role: "assistant", model: "scripted", stopReason: "toolUse", content: [{ type: "tool_use", id: `t${seen.sampling.length}`, name: tools[0], input: {} }] };
    }
    return { role: "assistant", model: "scripted", stopReason: "endTurn", content: { type: "text", text: `${Math.floor(pick / 3)},${pick % 3}` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    seen.elicitations++;
    const ctx = request.params._meta?.["io.tracksuit/elicitation"]?.context;
    const cells = (ctx?.board ?? "").replaceAll("|", "").split("");
    const pick = cells.lastIndexOf(".");
    return { action: "accept", content: { row: Math.floor(pick / 3), col: pick % 3 } };
  });
  await client.connect(transport);
  return { client, seen };
}

async function games(label, client, seen) {
  const { tools } = await client.listTools();
  const game = tools.find((t) => t.name === "tictactoe");
  const keys = game?._meta?.["io.tracksuit/elicitation-keys"] ?? [];
  check(`${label}: the game publishes its elicitation key`, keys[0]?.key === "PickMove" && keys[0]?.responseSchema?.properties?.row?.type === "integer", JSON.stringify(keys));

  for (let n = 0; n < 2; n++) {
    seen.sampling = [];
    seen.elicitations = 0;
    const r = await client.callTool({ name: "tictactoe", arguments: {} });
    const s = r.structuredContent ?? {};
    check(`${label}: game ${n + 1} finished`, ["user", "model", "draw"].includes(s.result) && s.moves >= 5, JSON.stringify(s));
    const last = seen.sampling.at(-1);
    const history = last?.messages ?? [];
    const flat = history.flatMap((m) => (Array.isArray(m.content) ? m.content : [m.content]).map((b) => ({ role: m.role, ...b })));
    const userMoves = flat.filter((b) => b.type === "tool_use" && b.name === "PickMove");
    const results = flat.filter((b) => b.type === "tool_result");
    const modelMoves = flat.filter((b) => b.role === "assistant" && b.type === "text");
    // A user move after the model's last turn (the game's final move) is not in its history.
    const userMovedLast = s.result === "user" || (s.result === "draw" && s.you_played === "X");
    const before = seen.elicitations - (userMovedLast ? 1 : 0);
    check(`${label}: game ${n + 1}: the model's last turn sees every earlier user move as tool_use + tool_result`, userMoves.length === results.length && userMoves.length === before && userMoves.every((u) => typeof u.input?.board === "string"), `${userMoves.length} tool_use / ${results.length} tool_result / ${seen.elicitations} elicitations`);
    check(`${label}: game ${n + 1}: and every earlier model move as assistant text`, modelMoves.length === seen.sampling.length - 1, `${modelMoves.length} of ${seen.sampling.length - 1}`);
  }

  // A model that makes invalid moves: re-asked, and the game still finishes.
  seen.sampling = [];
  seen.badMoves = 2;
  const messy = await client.callTool({ name: "tictactoe", arguments: {} });
  const reasks = seen.sampling.filter((p) => lastText(p).startsWith("That is not a free cell")).length;
  check(`${label}: invalid model moves are re-asked and the game finishes`, reasks === 2 && ["user", "model", "draw"].includes(messy.structuredContent?.result), `${reasks} re-asks, ${JSON.stringify(messy.structuredContent)}`);

  // A strategist game to the end: branches, a strategy tool, a structured move.
  seen.sampling = [];
  const strat = await client.callTool({ name: "tictactoe_strategist", arguments: {} });
  const schemaCalls = seen.sampling.filter((p) => (p.tools ?? []).some((t) => t.name === "__schema__")).length;
  const strategyCalls = seen.sampling.filter((p) => (p.tools ?? []).some((t) => t.name === "offensive")).length;
  check(`${label}: strategist game finished via sample_tools + sample_schema`, ["user", "model", "draw"].includes(strat.structuredContent?.result) && schemaCalls > 0 && schemaCalls === strategyCalls, `${JSON.stringify(strat.structuredContent)} schema=${schemaCalls} strategy=${strategyCalls}`);

  // Cancel a strategist game while two branches are sampling.
  seen.sampling = [];
  seen.hang = true;
  const controller = new AbortController();
  const pending = client.callTool({ name: "tictactoe_strategist", arguments: {} }, undefined, { signal: controller.signal }).catch(() => "cancelled");
  for (let i = 0; i < 200 && seen.sampling.length < 2; i++) await sleep(10);
  if (seen.sampling.length < 2) {
    // The user moved first; the model's turn follows the first elicitation.
    for (let i = 0; i < 300 && seen.sampling.length < 2; i++) await sleep(10);
  }
  check(`${label}: two branches sampling concurrently`, seen.sampling.length === 2, `${seen.sampling.length} pending`);
  controller.abort("interop test cancels the game");
  await pending;
  const atCancel = seen.sampling.length;
  await sleep(300);
  check(`${label}: no sampling request after the cancel`, seen.sampling.length === atCancel, `${atCancel} -> ${seen.sampling.length}`);
  seen.hang = false;
  let inFlight = -1;
  for (let i = 0; i < 50 && inFlight !== 0; i++) {
    const stats = await client.callTool({ name: "server_stats", arguments: {} });
    inFlight = JSON.parse(stats.content[0].text).inFlight;
    if (inFlight !== 0) await sleep(20);
  }
  check(`${label}: the server's in-flight count returns to zero`, inFlight === 0, String(inFlight));
}

await overBothTransports("tictactoe", binary, connect, (label, { client, seen }) => games(label, client, seen));

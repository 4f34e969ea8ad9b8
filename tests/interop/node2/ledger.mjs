// The TypeScript SDK v2 client against the `ledger` example (SQLite): side effects between
// questions run exactly once in both eras, counted in the database, and a final round
// re-sent 20 times at once (over HTTP, raw) gets the same result and deletes nothing more.
import { LEGACY, MODERN, callsOf, check, connect, run, target, textOf } from "./harness.mjs";

const t = target("ledger.mjs");

/** Answers yes to every question, keeping their messages. */
function yesMan() {
  const asked = [];
  return {
    asked,
    handlers: {
      elicit: async (params) => {
        asked.push(params.message);
        return { action: "accept", content: { yes: true } };
      },
    },
  };
}

const stats = async (client) => (await client.callTool({ name: "ledger_stats", arguments: {} })).structuredContent;

/** POSTs one JSON-RPC message to the endpoint as a 2026-07-28 request; the parsed reply. */
async function post(message) {
  const response = await fetch(t.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": message.method,
      "mcp-name": message.params.name,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const data = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).filter(Boolean);
    return JSON.parse(data[data.length - 1]);
  }
  return JSON.parse(text);
}

/** Re-sends a call's final round 20 times at once, then once with other answers: the
 * same result each time, and the ledger exactly as it was. */
async function resend(label, client, final, expected) {
  const before = JSON.stringify(await stats(client));
  const copies = await Promise.all(
    Array.from({ length: 20 }, (_, i) => post({ ...final, id: `resend-${i}` })),
  );
  const same = copies.filter((r) => r.result && textOf(r.result) === expected && r.result.resultType !== "input_required");
  check(`${label}: 20 concurrent re-sends of the final round get the first result`, same.length === 20,
    JSON.stringify(copies.find((r) => !same.includes(r))));
  const after = JSON.stringify(await stats(client));
  check(`${label}: and change nothing`, after === before, `${before} → ${after}`);
  const answers = final.params.inputResponses ?? {};
  const other = Object.fromEntries(Object.keys(answers).map((k) => [k, { action: "decline" }]));
  const refused = await post({ ...final, id: "other", params: { ...final.params, inputResponses: other } });
  check(`${label}: the same state with other answers is refused (-32602)`, refused.error?.code === -32602,
    JSON.stringify(refused));
}

async function ledger(label, version) {
  const { asked, handlers } = yesMan();
  const session = await connect(t, { version, handlers });
  const { client, wire } = session;
  await client.callTool({ name: "ledger_reset", arguments: {} });
  const modern = version === MODERN;
  const rounds = (tool, from) => callsOf(wire, tool, from);

  // dedupe: a once block between questions.
  let from = wire.length;
  const deduped = await client.callTool({ name: "dedupe", arguments: {} });
  const dedupeText = textOf(deduped);
  check(`${label}: dedupe deletes both duplicates`, dedupeText === "2 duplicate(s) deleted" && !deduped.isError, JSON.stringify(deduped));
  check(`${label}: the user was asked twice`, asked.length === 2, JSON.stringify(asked));
  let s = await stats(client);
  check(`${label}: two DELETEs ran, three entries left`, s?.deletes === 2 && s?.entries === 3, JSON.stringify(s));
  const dedupeCalls = rounds("dedupe", from);
  check(`${label}: dedupe took ${modern ? "three rounds" : "one tools/call"}`, dedupeCalls.length === (modern ? 3 : 1), `${dedupeCalls.length} tools/call`);
  if (modern && t.url && dedupeCalls.length > 0) await resend(`${label} dedupe`, client, dedupeCalls.at(-1).message, dedupeText);

  // transfer: a handoff tool of the server block, its phases on the database via &self.
  from = wire.length;
  const moved = await client.callTool({ name: "transfer", arguments: { from: "alice", to: "bob", amount: 120 } });
  const movedText = textOf(moved);
  check(`${label}: transfer moves the money`, movedText === "moved 120 from alice to bob" && !moved.isError, JSON.stringify(moved));
  s = await stats(client);
  check(`${label}: one transfer ran (after once)`, s?.transfers === 1 && s?.balances?.alice === 380 && s?.balances?.bob === 220, JSON.stringify(s));
  const transferCalls = rounds("transfer", from);
  check(`${label}: transfer took ${modern ? "two rounds" : "one tools/call"}`, transferCalls.length === (modern ? 2 : 1), `${transferCalls.length} tools/call`);
  if (modern && t.url && transferCalls.length > 0) await resend(`${label} transfer`, client, transferCalls.at(-1).message, movedText);
  await client.close();
}

run("ledger.mjs", t.label, async () => {
  await ledger(`${t.label} 2026-07-28`, MODERN);
  await ledger(`${t.label} 2025-11-25`, LEGACY);
});

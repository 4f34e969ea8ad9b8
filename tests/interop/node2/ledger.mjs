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

/** Re-sends the final `dedupe` round 20 times at once, then once with other answers. */
async function resend(label, client, final, expected) {
  const copies = await Promise.all(
    Array.from({ length: 20 }, (_, i) => post({ ...final, id: `resend-${i}` })),
  );
  const same = copies.filter((r) => r.result && textOf(r.result) === expected && r.result.resultType !== "input_required");
  check(`${label}: 20 concurrent re-sends of the final round get the first result`, same.length === 20,
    JSON.stringify(copies.find((r) => !same.includes(r))));
  const s = await stats(client);
  check(`${label}: and delete nothing more`, s?.deletes === 2 && s?.entries === 3, JSON.stringify(s));
  const answers = final.params.inputResponses ?? {};
  const other = Object.fromEntries(Object.keys(answers).map((k) => [k, { action: "decline" }]));
  const refused = await post({ ...final, id: "other", params: { ...final.params, inputResponses: other } });
  check(`${label}: the same state with other answers is refused (-32602)`, refused.error?.code === -32602,
    JSON.stringify(refused));
}

async function dedupe(label, version) {
  const { asked, handlers } = yesMan();
  const session = await connect(t, { version, handlers });
  const { client, wire } = session;
  await client.callTool({ name: "ledger_reset", arguments: {} });
  const from = wire.length;
  const result = await client.callTool({ name: "dedupe", arguments: {} });
  const text = textOf(result);
  check(`${label}: dedupe deletes both duplicates`, text === "2 duplicate(s) deleted" && !result.isError, JSON.stringify(result));
  check(`${label}: the user was asked twice`, asked.length === 2, JSON.stringify(asked));
  const s = await stats(client);
  check(`${label}: two DELETEs ran, three entries left`, s?.deletes === 2 && s?.entries === 3, JSON.stringify(s));
  const calls = callsOf(wire, "dedupe", from);
  if (version === MODERN) {
    check(`${label}: the call took three rounds`, calls.length === 3, `${calls.length} tools/call`);
    if (t.url && calls.length > 0) await resend(label, client, calls[calls.length - 1].message, text);
  } else {
    check(`${label}: one tools/call`, calls.length === 1, `${calls.length} tools/call`);
  }
  await client.close();
}

run("ledger.mjs", t.label, async () => {
  await dedupe(`${t.label} 2026-07-28`, MODERN);
  await dedupe(`${t.label} 2025-11-25`, LEGACY);
});

// Drives the conformance example with the official TypeScript SDK v2 client pinned to MCP
// 2026-07-28: the negotiated era, tools/list, a plain tool, a keyed MRTR elicitation, and
// `trip_planner`, a handoff tool that takes every kind of round (keyed elicitation, a
// `sample_schema` whose first answer is invalid and is retried with feedback, a form).
// Asserts its `before` / `after` phases run exactly once across the rounds. The call is made
// three times: by the pinned client without `sampling.tools` (the schema travels in the
// system prompt, the model answers JSON text), by one with `sampling.tools` (the model calls
// the `__schema__` tool; the retry's feedback is an error tool_result), and by a 2025-11-25
// client of the same package: the same tool code, both eras, the same result.
// Usage: node client.mjs --url http://127.0.0.1:PORT/mcp | --stdio <conformance-binary>
import {
  LEGACY,
  MODERN,
  blocksOf,
  callsOf,
  check,
  connect,
  inputRequiredSince,
  run,
  target,
  textOf,
} from "./harness.mjs";

const t = target("client.mjs");
const TRIP_TEXT = "2 days in Lisbon: Belem, Alfama; booked=true";
const INVALID = "I think Lisbon is nice";
const PLAN = { city: "Lisbon", sights: ["Belem", "Alfama"] };

/** The keyed-elicitation key tracksuit puts in an elicitation's `_meta`, if any. */
const keyOf = (params) => params?._meta?.["io.tracksuit/elicitation"]?.key;

/**
 * The scripted user and model for `trip_planner`: the user picks Lisbon and confirms; the
 * model first rambles (not JSON), then answers the plan as JSON (in a `__schema__` tool call
 * when the request offers that tool, as text otherwise).
 */
function tripScript() {
  const seen = { elicitations: [], sampling: [], unexpected: [] };
  const handlers = {
    async elicit(params) {
      seen.elicitations.push(params);
      const props = Object.keys(params.requestedSchema?.properties ?? {});
      if (props.includes("city")) return { action: "accept", content: { city: "Lisbon" } };
      if (props.includes("ok")) return { action: "accept", content: { ok: true } };
      seen.unexpected.push(params);
      return { action: "decline" };
    },
    async sample(params) {
      seen.sampling.push(params);
      const schemaTool = (params.tools ?? []).some((tool) => tool.name === "__schema__");
      if (seen.sampling.length === 1) {
        if (schemaTool) {
          // A call of the schema tool whose input misses a required field.
          return {
            role: "assistant",
            model: "scripted",
            stopReason: "toolUse",
            content: [{ type: "tool_use", id: "plan-0", name: "__schema__", input: { city: "Lisbon" } }],
          };
        }
        return { role: "assistant", model: "scripted", stopReason: "endTurn", content: { type: "text", text: INVALID } };
      }
      if (schemaTool) {
        return {
          role: "assistant",
          model: "scripted",
          stopReason: "toolUse",
          content: [{ type: "tool_use", id: "plan-1", name: "__schema__", input: PLAN }],
        };
      }
      return { role: "assistant", model: "scripted", stopReason: "endTurn", content: { type: "text", text: JSON.stringify(PLAN) } };
    },
  };
  return { seen, handlers };
}

async function phaseCounts(client) {
  return JSON.parse(textOf(await client.callTool({ name: "phase_counts", arguments: {} })));
}

/** Calls trip_planner {days: 2} and checks everything era-independent about it. */
async function tripPlanner(label, session, seen) {
  const { client, wire, dump } = session;
  const before = await phaseCounts(client);
  const from = wire.length;
  const started = Date.now();
  const result = await client.callTool({ name: "trip_planner", arguments: { days: 2 } });
  const ms = Date.now() - started;
  const after = await phaseCounts(client);
  const ok = check(`${label}: trip_planner result`, textOf(result) === TRIP_TEXT && !result.isError, JSON.stringify(result));
  check(`${label}: the user was asked twice (destination, confirmation)`, seen.elicitations.length === 2 && seen.unexpected.length === 0,
    seen.elicitations.map((p) => Object.keys(p.requestedSchema?.properties ?? {}).join(",")).join(" | "));
  check(`${label}: the model was sampled exactly twice`, seen.sampling.length === 2, `${seen.sampling.length} sampling request(s)`);
  const [first, second] = seen.sampling;
  if (first && second) {
    // The retry carries the rejected answer and the reason after the original prompt.
    const offered = (first.tools ?? []).some((tool) => tool.name === "__schema__");
    const added = second.messages.slice(first.messages.length);
    const echoed = added[0]?.role === "assistant" && blocksOf(added[0]).some((b) =>
      offered ? b.type === "tool_use" && b.id === "plan-0" : b.type === "text" && b.text === INVALID);
    const feedback = added.slice(1).filter((m) => m.role === "user").flatMap(blocksOf);
    const told = offered
      ? feedback.some((b) => b.type === "tool_result" && b.toolUseId === "plan-0" && b.isError === true)
      : feedback.some((b) => b.type === "text" && /could not be used/.test(b.text));
    check(`${label}: the retry carries the rejected answer, then the reason (${offered ? "an error tool_result" : "a user message"})`,
      second.messages.length > first.messages.length && echoed && told,
      `${first.messages.length} -> ${second.messages.length} messages; feedback: ${JSON.stringify(feedback).slice(0, 300)}`);
    if (!offered) {
      // The schema went into the system prompt because the client has no sampling.tools, so
      // the feedback must not tell the model to call a tool it was never given.
      const text = feedback.map((b) => b.text ?? "").join(" ");
      check(`${label}: the feedback does not mention a tool the model was not offered`, !/__schema__/.test(text), JSON.stringify(text));
    }
  }
  check(`${label}: before ran exactly once`, after.before === before.before + 1, `${before.before} -> ${after.before}`);
  check(`${label}: after ran exactly once`, after.after === before.after + 1, `${before.after} -> ${after.after}`);
  if (!ok) console.log(`  wire dumped to ${dump("trip_planner")}`);
  return { from, ms, result };
}

await run("client.mjs", t.label, async () => {
  // --- the modern era --------------------------------------------------------------------
  const trip = tripScript();
  const greeted = [];
  const modern = await connect(t, {
    version: MODERN,
    handlers: {
      elicit: (params) => {
        if (params.requestedSchema?.properties?.name) {
          greeted.push(params);
          return { action: "accept", content: { name: "Ada" } };
        }
        return trip.handlers.elicit(params);
      },
      sample: (params) => trip.handlers.sample(params),
    },
  });
  const { client, wire } = modern;
  check(`${t.label}: negotiated ${MODERN}`, client.getNegotiatedProtocolVersion() === MODERN,
    `version=${client.getNegotiatedProtocolVersion()} era=${client.getProtocolEra()}`);

  if (t.label === "stdio") {
    // The TS client probes server/discover on a short-lived sibling process, then starts the
    // session's own process, which never sees a discover.
    check(`${t.label}: the discover probe went to a sibling process`,
      !wire.some((w) => w.message.method === "server/discover"), `first message: ${wire[0]?.message.method ?? "(none yet)"}`);
  }
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  check(`${t.label}: tools/list has trip_planner and test_simple_text`,
    names.includes("trip_planner") && names.includes("test_simple_text"), `${names.length} tools`);

  const simple = await client.callTool({ name: "test_simple_text", arguments: {} });
  check(`${t.label}: test_simple_text`, textOf(simple) === "This is a simple text response for testing.", textOf(simple));

  let from = wire.length;
  const hello = await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
  const asked = inputRequiredSince(wire, from);
  check(`${t.label}: keyed MRTR elicitation`, textOf(hello) === "Hello, Ada!" && greeted.length === 1, textOf(hello));
  check(`${t.label}: it was asked as inputRequests["user_name"] in one round`,
    asked.length === 1 && Object.keys(asked[0].message.result.inputRequests ?? {}).join() === "user_name",
    JSON.stringify(asked.map((w) => Object.keys(w.message.result.inputRequests ?? {}))));

  const call = await tripPlanner(t.label, modern, trip.seen);
  const requests = callsOf(wire, "trip_planner", call.from);
  const rounds = inputRequiredSince(wire, call.from);
  const keys = rounds.map((w) => Object.keys(w.message.result.inputRequests ?? {}).join("+") || "(state only)");
  const handled = trip.seen.elicitations.length + trip.seen.sampling.length;
  console.log(`  ${t.label}: trip_planner took ${requests.length} tools/call requests, ${rounds.length} input_required rounds [${keys.join(", ")}], ${handled} handler calls, ${call.ms} ms`);
  check(`${t.label}: trip_planner took at least 3 input_required rounds`, rounds.length >= 3 && requests.length === rounds.length + 1,
    `${rounds.length} rounds, ${requests.length} requests`);
  check(`${t.label}: the destination was asked under the key pick_destination`, keys[0] === "pick_destination", keys[0]);
  check(`${t.label}: every retry echoed the previous requestState`,
    requests.slice(1).every((w, i) => w.message.params.requestState === rounds[i].message.result.requestState),
    `${requests.slice(1).filter((w) => typeof w.message.params.requestState === "string").length} of ${requests.length - 1} retries carry one`);
  const keyed = trip.seen.elicitations.map(keyOf);
  if (keyed[0] !== undefined) check(`${t.label}: the handler sees the elicitation's key in _meta`, /pick_?destination/i.test(keyed[0]), String(keyed[0]));
  await client.close();

  // --- the same call from a client with sampling.tools: the plan comes as a tool call ---
  const toolTrip = tripScript();
  const withTools = await connect(t, {
    version: MODERN,
    handlers: toolTrip.handlers,
    capabilities: { elicitation: { form: {} }, sampling: { tools: {} } },
  });
  const viaTool = await tripPlanner(`${t.label} sampling.tools`, withTools, toolTrip.seen);
  check(`${t.label} sampling.tools: the model was offered the __schema__ tool`,
    toolTrip.seen.sampling.every((p) => (p.tools ?? []).some((tool) => tool.name === "__schema__")));
  const toolRounds = inputRequiredSince(withTools.wire, viaTool.from);
  console.log(`  ${t.label} sampling.tools: trip_planner took ${callsOf(withTools.wire, "trip_planner", viaTool.from).length} tools/call requests, ${toolRounds.length} input_required rounds, ${viaTool.ms} ms`);
  await withTools.client.close();

  // --- the same call from a 2025-11-25 client -------------------------------------------
  const legacyTrip = tripScript();
  const legacy = await connect(t, { version: LEGACY, handlers: legacyTrip.handlers });
  check(`${t.label}: a default (legacy) client negotiates ${LEGACY}`, legacy.client.getNegotiatedProtocolVersion() === LEGACY,
    `version=${legacy.client.getNegotiatedProtocolVersion()} era=${legacy.client.getProtocolEra()}`);
  const old = await tripPlanner(`${t.label} ${LEGACY}`, legacy, legacyTrip.seen);
  const oldCalls = callsOf(legacy.wire, "trip_planner", old.from);
  check(`${t.label} ${LEGACY}: one tools/call, the questions as server requests`,
    oldCalls.length === 1 && inputRequiredSince(legacy.wire, old.from).length === 0 &&
      legacy.wire.slice(old.from).filter((w) => w.dir === "<-" && w.message.method && w.message.id !== undefined).length === 4,
    `${oldCalls.length} tools/call`);
  console.log(`  ${t.label} ${LEGACY}: trip_planner took ${old.ms} ms`);
  await legacy.client.close();
});

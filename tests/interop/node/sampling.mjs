// Typed sampling against the official TypeScript SDK client, whose sampling handler plays a
// scripted model: raw text, parallel tool calls, sample_tools retry, sample_schema retries
// (invalid JSON, then schema violation, then valid), a plain-text answer, an exhausted
// budget, and the plan_trip example (sample_tools then sample_schema). stdio and HTTP.
// Usage: node sampling.mjs <path-to-sampling-binary>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, overBothTransports, sleep, textOf } from "./harness.mjs";

const binary = process.argv[2];

const say = (text) => ({ role: "assistant", model: "scripted", stopReason: "endTurn", content: { type: "text", text } });
const use = (...calls) => ({
  role: "assistant",
  model: "scripted",
  stopReason: "toolUse",
  content: calls.map(([id, name, input]) => ({ type: "tool_use", id, name, input })),
});

/** A client whose model answers from `script` and records every request. */
async function connect(transport) {
  const model = { script: [], requests: [] };
  const client = new Client({ name: "tracksuit-sampling-interop", version: "1.0.0" }, { capabilities: { sampling: { tools: {} } } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    model.requests.push(request.params);
    const reply = model.script.shift();
    if (!reply) throw new Error("the script ran out of replies");
    return reply;
  });
  await client.connect(transport);
  return { client, model };
}

async function scenarios(label, client, model) {
  const run = async (name, args, script) => {
    model.script = script;
    model.requests = [];
    return textOf(await client.callTool({ name, arguments: args }));
  };

  let out = JSON.parse(await run("ask", { prompt: "Say hi" }, [say("hi there")]));
  check(`${label}: raw text`, out.text === "hi there" && out.stopReason === "endTurn" && out.messages === 2, JSON.stringify(out));

  out = JSON.parse(await run("research_calls", { city: "Oslo" }, [use(["a", "get_weather", { city: "Oslo" }], ["b", "get_events", { city: "Oslo" }])]));
  check(`${label}: parallel tool calls in one array`, out.length === 2 && out[0].name === "get_weather" && out[1].name === "get_events", JSON.stringify(out));
  check(`${label}: tools offered to the model`, model.requests[0].tools?.length === 2);

  out = JSON.parse(await run("must_research", { city: "Oslo" }, [say("Probably rainy."), use(["c", "get_weather", { city: "Oslo" }])]));
  const retry = model.requests[1]?.messages ?? [];
  check(`${label}: sample_tools retries an answer without a tool call`, out.calls?.[0] === "get_weather" && model.requests.length === 2, JSON.stringify(out));
  check(`${label}: the retry says why`, model.requests[0].toolChoice?.mode === "required" && retry.length === 3 && JSON.stringify(retry[2]).includes("calling one of the provided tools"), JSON.stringify(retry));

  out = JSON.parse(await run("must_research", { city: "Oslo", retries: 1 }, [say("no"), say("still no")]));
  check(`${label}: sample_tools budget exhausted`, out.gaveUpAfter === 2, JSON.stringify(out));

  const valid = { city: "Oslo", days: [{ activity: "Museum", indoors: true }, { activity: "Fjord cruise", indoors: false }] };
  out = JSON.parse(await run("itinerary", { city: "Oslo" }, [
    say("Day 1: museum, day 2: fjord {not json"),
    use(["s2", "__schema__", { city: "Oslo", days: [] }]),
    use(["s3", "__schema__", valid]),
  ]));
  const [first, second, third] = model.requests;
  check(`${label}: sample_schema sends __schema__ with toolChoice required`, first?.tools?.[0]?.name === "__schema__" && first.tools[0].description === "Respond with structured data matching this schema." && first.toolChoice?.mode === "required");
  check(`${label}: retry 1 carries the text answer and the JSON error`, second?.messages?.length === 3 && JSON.stringify(second.messages[2]).includes("no JSON value"), JSON.stringify(second?.messages?.[2]));
  const tr = third?.messages?.[4]?.content;
  check(`${label}: retry 2 carries tool_use + error tool_result naming the field`, third?.messages?.[3]?.content?.[0]?.type === "tool_use" && tr?.type === "tool_result" && tr.toolUseId === "s2" && tr.isError === true && JSON.stringify(tr).includes("days"), JSON.stringify(tr));
  check(`${label}: the third answer is parsed`, out.itinerary?.days?.length === 2 && out.messages === 3, JSON.stringify(out));

  out = JSON.parse(await run("itinerary", { city: "Rome" }, [say("Here you go:\n```json\n" + JSON.stringify({ city: "Rome", days: [{ activity: "Forum", indoors: false }] }) + "\n```")]));
  check(`${label}: __schema__ answered in plain text`, out.itinerary?.city === "Rome", JSON.stringify(out));

  out = JSON.parse(await run("itinerary", { city: "Rome" }, [say("a"), say("b"), say("c")]));
  check(`${label}: sample_schema budget exhausted with every attempt`, out.gaveUpAfter === 3 && out.problems.length === 3, JSON.stringify(out));

  const trip = await client.callTool({ name: "plan_trip", arguments: { city: "Oslo" } });
  model.script = [];
  check(`${label}: plan_trip (no script) fails as a tool error`, trip.isError === true);
  model.script = [use(["r1", "get_weather", { city: "Oslo" }]), use(["p1", "__schema__", valid])];
  model.requests = [];
  const planned = await client.callTool({ name: "plan_trip", arguments: { city: "Oslo" } });
  const history = JSON.stringify(model.requests[1]?.messages ?? []);
  check(`${label}: plan_trip returns structured content`, planned.structuredContent?.days?.length === 2, JSON.stringify(planned));
  check(`${label}: the second sample sees the first exchange and its tool_result`, history.includes("get_weather") && history.includes('"toolUseId":"r1"') && history.includes("4°C, rain"), history);
}

await overBothTransports("sampling", binary, connect, (label, { client, model }) => scenarios(label, client, model));

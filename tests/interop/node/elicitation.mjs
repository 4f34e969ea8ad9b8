// Elicitation against the official TypeScript SDK client: form elicitations accepted,
// declined and cancelled, schema shapes from #[derive(Elicits)], URL mode with
// notifications/elicitation/complete, and the -32042 URLElicitationRequiredError.
// Over stdio and HTTP. Usage: node elicitation.mjs <path-to-conformance-binary>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, overBothTransports, sleep, textOf } from "./harness.mjs";

const binary = process.argv[2];

async function connect(transport) {
  const user = { answer: null, requests: [], completed: [] };
  const client = new Client({ name: "tracksuit-elicitation-interop", version: "1.0.0" }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    user.requests.push(request.params);
    return user.answer;
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => user.completed.push(n.params.elicitationId));
  await client.connect(transport);
  return { client, user };
}

async function scenarios(label, client, user) {
  user.answer = { action: "accept", content: { username: "octocat", email: "octo@example.com" } };
  let r = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  const form = user.requests.at(-1);
  check(`${label}: form schema from the derive`, form.requestedSchema.properties.email.description === "User's email address" && JSON.stringify(form.requestedSchema.required) === '["username","email"]', JSON.stringify(form.requestedSchema));
  check(`${label}: accepted`, textOf(r).startsWith("User response: action=accept") && textOf(r).includes("octocat"), textOf(r));

  user.answer = { action: "decline" };
  r = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  check(`${label}: declined`, textOf(r) === "User response: action=decline, content={}", textOf(r));

  user.answer = { action: "cancel" };
  r = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  check(`${label}: cancelled`, textOf(r) === "User response: action=cancel, content={}", textOf(r));

  user.answer = { action: "accept", content: { name: "Ada", age: 36, score: 99.5, status: "pending", verified: false } };
  r = await client.callTool({ name: "test_elicitation_sep1034_defaults", arguments: {} });
  const d = user.requests.at(-1).requestedSchema.properties;
  check(`${label}: SEP-1034 defaults`, d.name.default === "John Doe" && d.age.default === 30 && d.age.type === "integer" && d.score.default === 95.5 && d.status.default === "active" && d.verified.default === true, JSON.stringify(d));
  check(`${label}: typed accept of the defaults form`, textOf(r).includes('"status":"pending"'), textOf(r));

  user.answer = { action: "accept", content: { untitledSingle: "option2", titledMulti: ["value1", "value3"] } };
  r = await client.callTool({ name: "test_elicitation_sep1330_enums", arguments: {} });
  const e = user.requests.at(-1).requestedSchema.properties;
  check(`${label}: SEP-1330 enum shapes`, e.untitledSingle.enum?.length === 3 && e.titledSingle.oneOf?.[0]?.title === "First Option" && e.legacyEnum.enumNames?.[2] === "Option Three" && e.untitledMulti.items.enum?.[0] === "option1" && e.titledMulti.items.anyOf?.[1]?.const === "value2", JSON.stringify(e));

  user.answer = { action: "accept", content: { untitledSingle: "option9" } };
  r = await client.callTool({ name: "test_elicitation_sep1330_enums", arguments: {} });
  check(`${label}: content outside the schema is refused, not a crash`, r.isError === true && textOf(r).includes("untitledSingle"), textOf(r));

  user.answer = { action: "accept" };
  r = await client.callTool({ name: "authorize", arguments: {} });
  const url = user.requests.at(-1);
  for (let i = 0; i < 20 && user.completed.length === 0; i++) await sleep(25);
  check(`${label}: URL mode request`, url.mode === "url" && url.url === "https://example.com/oauth/start" && typeof url.elicitationId === "string", JSON.stringify(url));
  check(`${label}: URL mode accepted and completed`, textOf(r).startsWith("action=Accept") && user.completed[0] === url.elicitationId, `${textOf(r)} ${JSON.stringify(user.completed)}`);

  try {
    await client.callTool({ name: "needs_authorization", arguments: {} });
    check(`${label}: -32042`, false, "no error");
  } catch (err) {
    check(`${label}: -32042 URLElicitationRequiredError`, err.code === -32042 && JSON.stringify(err.data ?? {}).includes("https://example.com/login"), `${err.code} ${JSON.stringify(err.data)}`);
  }
}

await overBothTransports("elicitation", binary, connect, (label, { client, user }) => scenarios(label, client, user));

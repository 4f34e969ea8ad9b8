// A mounted server through the official TypeScript SDK client (2025-11-25): the conformance
// example serves the suite's fixtures through `mount_flat` and `test_elicitation` once more
// through `mount("mounted", ..)`; the client lists both names and calls the prefixed one,
// answering its elicitation. Over stdio and HTTP. Usage: node mount.mjs <conformance-binary>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, overBothTransports, textOf } from "./harness.mjs";

const binary = process.argv[2];

async function connect(transport) {
  const asked = [];
  const client = new Client({ name: "tracksuit-mount-interop", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return { action: "accept", content: { username: "mounted-user", email: "m@example.com" } };
  });
  await client.connect(transport);
  return { client, asked };
}

async function scenario(label, { client, asked }) {
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  check(`${label}: the prefixed mounted tool is listed`, names.includes("mounted_test_elicitation"), `${names.length} tools`);
  check(`${label}: the flat-mounted fixtures keep their names`, names.includes("test_elicitation") && names.includes("test_simple_text"), names.length);
  check(`${label}: every name once`, new Set(names).size === names.length, names.length);
  const r = await client.callTool({ name: "mounted_test_elicitation", arguments: { message: "Who is mounted?" } });
  check(`${label}: the mounted tool elicited`, asked.length === 1 && asked[0].message === "Who is mounted?", JSON.stringify(asked));
  check(`${label}: the mounted tool's result carries the answer`, textOf(r).startsWith("User response: action=accept") && textOf(r).includes("mounted-user"), textOf(r));
  try {
    await client.callTool({ name: "mounted_nothing", arguments: {} });
    check(`${label}: an unknown prefixed name is -32602`, false, "no error");
  } catch (err) {
    check(`${label}: an unknown prefixed name is -32602`, err.code === -32602, `${err.code} ${err.message}`);
  }
}

await overBothTransports("mount", binary, connect, scenario);

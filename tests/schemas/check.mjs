// Lists the tools of each example server (over stdio, the raw JSON-RPC lines) and checks
// every derived inputSchema / outputSchema:
//  - ajv (draft 2020-12) in strict mode compiles it: no unknown keyword or format, no union
//    type, no `$ref` left but a recursive type's;
//  - no top-level oneOf/anyOf/allOf, `type: "object"` at the top;
//  - run again with TRACKSUIT_STRICT_SCHEMAS=1: every input object schema lists all its
//    properties in `required` and has `additionalProperties: false` (OpenAI-style strict).
// Hand-written schemas (HAND_WRITTEN) must come through untouched: only checked to be there.
//
// usage: node check.mjs <target/debug dir>
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const dir = process.argv[2];
const EXAMPLES = ["conformance", "sampling", "tasks", "tictactoe"];
const HAND_WRITTEN = new Set(["json_schema_2020_12_tool"]);

function listTools(bin, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["--stdio"], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => { child.kill(); reject(new Error(`${bin}: no tools/list answer in 30 s`)); }, 30000);
    lines.on("line", (line) => {
      const msg = JSON.parse(line);
      if (msg.id === 1) {
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\n");
      } else if (msg.id === 2) {
        clearTimeout(timer);
        child.stdin.end();
        child.kill();
        if (msg.error) reject(new Error(JSON.stringify(msg.error)));
        else resolve(msg.result.tools);
      }
    });
    child.on("error", reject);
    child.stdin.write(JSON.stringify({
      jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "schema-check", version: "0" } },
    }) + "\n");
  });
}

function refs(schema, out = []) {
  if (Array.isArray(schema)) schema.forEach((s) => refs(s, out));
  else if (schema && typeof schema === "object") {
    if (typeof schema.$ref === "string") out.push(schema.$ref);
    Object.values(schema).forEach((s) => refs(s, out));
  }
  return out;
}

// Every object schema (one with `properties`) closed and fully required.
function strictProfileProblems(schema, path, out = []) {
  if (Array.isArray(schema)) schema.forEach((s, i) => strictProfileProblems(s, `${path}/${i}`, out));
  else if (schema && typeof schema === "object") {
    if (schema.properties && typeof schema.properties === "object") {
      const names = Object.keys(schema.properties).sort();
      const required = [...(schema.required ?? [])].sort();
      if (JSON.stringify(names) !== JSON.stringify(required)) out.push(`${path}: required ${JSON.stringify(required)} != properties ${JSON.stringify(names)}`);
      if (schema.additionalProperties !== false) out.push(`${path}: additionalProperties is not false`);
    }
    for (const [k, v] of Object.entries(schema)) {
      if (!["const", "enum", "default", "examples"].includes(k)) strictProfileProblems(v, `${path}/${k}`, out);
    }
  }
  return out;
}

function ajv(unionTypes) {
  const a = new Ajv2020({ strict: true, allowUnionTypes: unionTypes, allErrors: true });
  addFormats(a);
  // MCP 2026-07-28's annotation for a parameter mirrored in an HTTP header (SEP-2243).
  a.addKeyword("x-mcp-header");
  return a;
}

const failures = [];
let checked = 0;
for (const example of EXAMPLES) {
  const bin = `${dir}/${example}`;
  for (const strict of [false, true]) {
    const tools = await listTools(bin, strict ? { TRACKSUIT_STRICT_SCHEMAS: "1" } : {});
    for (const tool of tools) {
      if (HAND_WRITTEN.has(tool.name)) {
        if (!strict && !tool.inputSchema.$defs) failures.push(`${example}/${tool.name}: the hand-written schema was rewritten`);
        continue;
      }
      const schemas = [["inputSchema", tool.inputSchema]];
      if (tool.outputSchema) schemas.push(["outputSchema", tool.outputSchema]);
      for (const [which, schema] of schemas) {
        const where = `${example}/${tool.name}.${which}${strict ? " (strict profile)" : ""}`;
        checked++;
        // Output schemas keep `["T", "null"]` for an `Option` (serde writes `null`); the
        // strict profile's nullable properties are union types too.
        const unionTypes = strict || which === "outputSchema";
        try {
          ajv(unionTypes).compile(schema);
        } catch (e) {
          failures.push(`${where}: ajv strict: ${e.message}`);
        }
        if (schema.type !== "object") failures.push(`${where}: type is ${JSON.stringify(schema.type)}, not "object"`);
        for (const k of ["oneOf", "anyOf", "allOf"]) if (k in schema) failures.push(`${where}: top-level ${k}`);
        const defs = Object.keys(schema.$defs ?? {});
        for (const r of refs(schema)) {
          const name = r.replace("#/$defs/", "");
          if (!defs.includes(name)) failures.push(`${where}: $ref ${r} left (not a recursive type's)`);
        }
        if (which === "inputSchema" && !strict) {
          const text = JSON.stringify(schema);
          if (text.includes('"null"')) failures.push(`${where}: a null type is left (an optional property should just be optional)`);
        }
        if (which === "inputSchema" && strict) {
          for (const p of strictProfileProblems(schema, "")) failures.push(`${where}: ${p}`);
        }
      }
    }
  }
}
console.log(`${checked} derived schemas checked`);
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
console.log("all derived tool schemas pass ajv strict mode and the strict-profile rules");

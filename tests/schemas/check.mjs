// Lists the tools of each example server (over stdio, the raw JSON-RPC lines) and checks
// every derived inputSchema / outputSchema:
//  - ajv (draft 2020-12) in strict mode compiles it: no unknown keyword or format, no union
//    type, no `$ref` left but a recursive type's;
//  - no top-level oneOf/anyOf/allOf, `type: "object"` at the top;
//  - in every schema profile (TRACKSUIT_SCHEMA_PROFILE, and TRACKSUIT_STRICT_SCHEMAS=1):
//    openai-strict: every input object schema lists all its properties in `required` and
//    has `additionalProperties: false`; gemini-safe: only the keywords and shapes of
//    Gemini's Schema (geminiProblems); raw: ajv strict with union types.
// Hand-written schemas (HAND_WRITTEN) come through untouched in the portable and raw
// profiles (only checked to be there); the strict and Gemini profiles rewrite them too.
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

// The OpenAPI 3.0 subset of Gemini's function declarations (the `Schema` object of the
// Gemini API / Vertex AI references; fields outside it are rejected with "Unknown name ...
// Cannot find field", a list `type` with "Proto field is not repeating"). `x-mcp-header` is
// MCP's annotation, for the client.
const GEMINI_KEYS = new Set(["type", "format", "title", "description", "nullable", "enum", "items",
  "properties", "required", "propertyOrdering", "anyOf", "minItems", "maxItems", "minLength",
  "maxLength", "minProperties", "maxProperties", "minimum", "maximum", "pattern", "example",
  "x-mcp-header"]);
const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);

function geminiProblems(schema, path, out = []) {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) {
    out.push(`${path}: not a schema object`);
    return out;
  }
  for (const [k, v] of Object.entries(schema)) {
    if (!GEMINI_KEYS.has(k)) out.push(`${path}: keyword ${k} is not in Gemini's Schema`);
    else if (k === "type" && !GEMINI_TYPES.has(v)) out.push(`${path}: type ${JSON.stringify(v)}`);
    else if (k === "format" && !(schema.type === "string" && ["date-time", "enum"].includes(v))) out.push(`${path}: format ${v}`);
    else if (k === "enum" && !(Array.isArray(v) && v.every((e) => typeof e === "string"))) out.push(`${path}: enum of non-strings`);
    else if (k === "nullable" && typeof v !== "boolean") out.push(`${path}: nullable is not a boolean`);
    else if (k === "items") geminiProblems(v, `${path}/items`, out);
    else if (k === "anyOf") v.forEach((b, i) => geminiProblems(b, `${path}/anyOf/${i}`, out));
    else if (k === "properties") for (const [n, p] of Object.entries(v)) geminiProblems(p, `${path}/properties/${n}`, out);
  }
  return out;
}

function ajv(unionTypes, extraKeywords = []) {
  const a = new Ajv2020({ strict: true, allowUnionTypes: unionTypes, allErrors: true });
  addFormats(a);
  // MCP 2026-07-28's annotation for a parameter mirrored in an HTTP header (SEP-2243).
  a.addKeyword("x-mcp-header");
  for (const k of extraKeywords) a.addKeyword(k);
  return a;
}

// Each run: the environment the server starts with, and the profile its clients get.
const RUNS = [
  ["portable", {}],
  ["openai-strict", { TRACKSUIT_SCHEMA_PROFILE: "openai-strict" }],
  ["openai-strict", { TRACKSUIT_STRICT_SCHEMAS: "1" }],
  ["gemini-safe", { TRACKSUIT_SCHEMA_PROFILE: "gemini-safe" }],
  ["raw", { TRACKSUIT_SCHEMA_PROFILE: "raw" }],
];

const failures = [];
let checked = 0;

function checkInput(where, profile, schema, handWritten) {
  const gemini = profile === "gemini-safe";
  if (handWritten && profile === "openai-strict") {
    // A 2020-12 feature test (if/then/else, allOf of `required`s): the strict profile closes
    // and requires its objects; the rest is the author's.
    for (const p of strictProfileProblems(schema, "")) failures.push(`${where}: ${p}`);
    return;
  }
  try {
    // Gemini's `example` is OpenAPI's (ajv knows `nullable`).
    ajv(profile !== "portable" && !gemini, gemini ? ["example"] : []).compile(schema);
  } catch (e) {
    failures.push(`${where}: ajv strict: ${e.message}`);
  }
  if (schema.type !== "object") failures.push(`${where}: type is ${JSON.stringify(schema.type)}, not "object"`);
  for (const k of ["oneOf", "anyOf", "allOf"]) if (k in schema) failures.push(`${where}: top-level ${k}`);
  if (profile === "openai-strict") for (const p of strictProfileProblems(schema, "")) failures.push(`${where}: ${p}`);
  if (gemini) for (const p of geminiProblems(schema, "")) failures.push(`${where}: Gemini: ${p}`);
  if (handWritten) return;
  if (profile === "portable" || profile === "openai-strict") {
    const defs = Object.keys(schema.$defs ?? {});
    for (const r of refs(schema)) {
      if (!defs.includes(r.replace("#/$defs/", ""))) failures.push(`${where}: $ref ${r} left (not a recursive type's)`);
    }
  }
  if (profile === "portable" && JSON.stringify(schema).includes('"null"')) {
    failures.push(`${where}: a null type is left (an optional property should just be optional)`);
  }
}

for (const example of EXAMPLES) {
  const bin = `${dir}/${example}`;
  for (const [profile, env] of RUNS) {
    const tools = await listTools(bin, env);
    const label = `${profile}${Object.keys(env).length ? ` (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}`;
    for (const tool of tools) {
      const handWritten = HAND_WRITTEN.has(tool.name);
      const where = `${example}/${tool.name}.inputSchema [${label}]`;
      if (handWritten && (profile === "portable" || profile === "raw")) {
        if (!tool.inputSchema.$defs) failures.push(`${where}: the hand-written schema was rewritten`);
        continue;
      }
      checked++;
      checkInput(where, profile, tool.inputSchema, handWritten);
      if (tool.outputSchema && profile === "portable") {
        checked++;
        // Output schemas keep `["T", "null"]` for an `Option` (serde writes `null`).
        try {
          ajv(true).compile(tool.outputSchema);
        } catch (e) {
          failures.push(`${example}/${tool.name}.outputSchema: ajv strict: ${e.message}`);
        }
      }
    }
  }
}
console.log(`${checked} schemas checked (${RUNS.length} runs per example server)`);
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
console.log("every tool schema passes ajv strict mode in every profile, OpenAI's strict rules and the Gemini subset");

// The `cargo tracksuit dev` scenario, shared by the 2025-11-25 client (TypeScript SDK v1,
// tests/interop/node/devloop.mjs) and the 2026-07-28 one (SDK v2, tests/interop/node2/devloop.mjs).
// Each connects ONCE to `cargo tracksuit dev` (its stdio server) on a scratch crate whose
// `greet` tool this script edits, and checks, without reconnecting:
//   1. `greet(name)` is listed and answers;
//   2. after adding a parameter to the source: `notifications/tools/list_changed` arrives,
//      then `tools/list` shows the new parameter and a call uses it;
//   3. after a broken edit: the compiler's error is on the terminal (tmux's screen), and
//      the last good build still answers, with its schema;
//   4. after fixing it: list_changed again, and the fixed code answers.
// Waits are polls with deadlines (a rebuild is seconds; the deadline is generous for CI).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const REBUILD_DEADLINE_MS = 150_000;

let failed = 0;
/** Records one check (a PASS or FAIL line). */
export function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  if (!ok) failed++;
  return ok;
}
/** How many checks failed so far. */
export const failures = () => failed;

const GOOD_V1 = `use tracksuit::{Server, mcp_tool};

/// Greets someone.
#[mcp_tool]
async fn greet(/** who */ name: String) -> String {
    format!("hello {name}")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(tracksuit::crate_info!()).tool(greet).serve_stdio().await
}
`;

const withPunctuation = (greeting, extra = "") => `use tracksuit::{Server, mcp_tool};

/// Greets someone.
#[mcp_tool]
async fn greet(/** who */ name: String, /** what ends the greeting */ punctuation: String) -> String {
    ${extra}format!("${greeting} {name}{punctuation}")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(tracksuit::crate_info!()).tool(greet).serve_stdio().await
}
`;

const GOOD_V2 = withPunctuation("hello");
const BROKEN = withPunctuation("hello", `let broken: u32 = "not a number";\n    `);
const GOOD_V3 = withPunctuation("hi");

export const sourceVersions = { GOOD_V1 };

/** Polls `probe` (sync or async) until it returns a truthy value, or throws at `ms`. */
export async function waitFor(what, probe, ms = REBUILD_DEADLINE_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The whole tmux pane (scrollback included), as the user sees it; `pane` names both the
 * tmux server's socket and the session (scripts/dev-loop.sh runs a server of its own). */
function screen(pane) {
  const args = ["-L", pane, "capture-pane", "-p", "-J", "-S", "-", "-t", pane];
  return execFileSync("tmux", args, { encoding: "utf8" }).trimEnd();
}

const textOf = (r) => (r?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

/**
 * `session`: `{ listTools(), callTool(name, args), changes() }` where `changes()` is the
 * number of `notifications/tools/list_changed` received so far. `check(name, ok, detail)`
 * records a result. `source`: the scratch crate's src/main.rs. `pane`: the tmux pane.
 */
export async function devLoop({ session, check, source, pane }) {
  const props = async () => {
    const tools = await session.listTools();
    const greet = tools.find((t) => t.name === "greet");
    return Object.keys(greet?.inputSchema?.properties ?? {}).sort().join(",");
  };

  // 1. the first build
  check("greet is listed with one parameter", (await props()) === "name");
  check("greet answers", textOf(await session.callTool("greet", { name: "ada" })) === "hello ada");

  // 2. a parameter added
  let seen = session.changes();
  const started = Date.now();
  writeFileSync(source, GOOD_V2);
  await waitFor("tools/list_changed after adding a parameter", () => session.changes() > seen);
  const rebuildMs = Date.now() - started;
  check("tools/list_changed arrived after the edit", true, `${rebuildMs} ms after saving`);
  check("tools/list shows the new parameter", (await props()) === "name,punctuation");
  const v2 = textOf(await session.callTool("greet", { name: "ada", punctuation: "!" }));
  check("the new build answers with it", v2 === "hello ada!", v2);

  // 3. a broken edit: the error on the terminal, the last good build still serving
  const before = screen(pane).split("\n").length;
  seen = session.changes();
  writeFileSync(source, BROKEN);
  const shown = await waitFor("the compiler's error on the terminal", () => {
    const lines = screen(pane).split("\n").slice(before - 1).join("\n");
    return /error\[E0308\]/.test(lines) && /last good build keeps serving/.test(lines) && lines;
  });
  check("the build error is shown on the terminal", /mismatched types/.test(shown));
  check("no list_changed for a failed build", session.changes() === seen);
  check("the last good build keeps its schema", (await props()) === "name,punctuation");
  const still = textOf(await session.callTool("greet", { name: "bob", punctuation: "?" }));
  check("the last good build keeps answering", still === "hello bob?", still);

  // 4. fixed
  writeFileSync(source, GOOD_V3);
  await waitFor("tools/list_changed after the fix", () => session.changes() > seen);
  const v3 = textOf(await session.callTool("greet", { name: "ada", punctuation: "." }));
  check("after the fix the new code answers", v3 === "hi ada.", v3);
  check("the source is what was served", readFileSync(source, "utf8") === GOOD_V3);
}

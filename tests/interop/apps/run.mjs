// Plays a whole TicTacToe game through its MCP App in headless Chromium, by clicking cells.
//
//   node run.mjs <tictactoe binary> <screenshot path>
//
// Starts the tictactoe example on a free loopback port, bundles host.mjs (the TypeScript SDK
// client + the ext-apps app-bridge) with esbuild, serves host.html and proxies /mcp to the
// server (same origin, so the page needs no CORS), and drives the system Chromium with
// puppeteer-core: each time the App shows "your turn" it clicks a cell (win, else block,
// else centre / corner / any), until the App shows the outcome. It then checks what the
// server reported (structuredContent of the tictactoe result) against the board in the App
// and the clicks made, and saves a screenshot of the final board.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const [binary, screenshot] = process.argv.slice(2);
if (!binary || !screenshot) {
  console.error("usage: node run.mjs <tictactoe binary> <screenshot path>");
  process.exit(2);
}
let failures = 0;
const check = (ok, what, detail = "") => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? `: ${detail}` : ""}`);
  if (!ok) failures++;
};

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });

async function waitForPort(port, child) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const open = await new Promise((resolve) => {
      const sock = net.connect(port, "127.0.0.1", () => (sock.end(), resolve(true)));
      sock.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server did not listen on ${port}`);
}

/** The cell to click: win, else block, else centre, corners, edges. */
function choose(cells, me) {
  const lines = [[0,1,2],[3,4,5],[6,7,8],[0,3,6],[1,4,7],[2,5,8],[0,4,8],[2,4,6]];
  const them = me === "X" ? "O" : "X";
  for (const who of [me, them]) {
    for (const l of lines) {
      const marks = l.map((i) => cells[i]);
      if (marks.filter((c) => c === who).length === 2 && marks.includes(".")) return l[marks.indexOf(".")];
    }
  }
  return [4, 0, 2, 6, 8, 1, 3, 5, 7].find((i) => cells[i] === ".");
}

const serverPort = await freePort();
const server = spawn(binary, ["--port", String(serverPort)], { stdio: ["ignore", "inherit", "inherit"] });
let browser;
let host;
try {
  await waitForPort(serverPort, server);
  const bundle = await esbuild.build({
    entryPoints: [path.join(here, "host.mjs")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "chrome120",
    write: false,
    logLevel: "warning",
  });
  const js = bundle.outputFiles[0].text;
  const page = readFileSync(path.join(here, "host.html"));
  host = http.createServer((req, res) => {
    if (req.url.startsWith("/mcp")) {
      const upstream = http.request(
        { host: "127.0.0.1", port: serverPort, path: req.url, method: req.method, headers: { ...req.headers, host: `127.0.0.1:${serverPort}` } },
        (r) => {
          res.writeHead(r.statusCode, r.headers);
          r.pipe(res);
        },
      );
      upstream.on("error", (e) => (res.writeHead(502), res.end(String(e))));
      req.pipe(upstream);
      return;
    }
    if (req.url === "/favicon.ico") return res.writeHead(204).end();
    const at = new URL(req.url, "http://host").pathname;
    const body = at === "/host.bundle.js" ? js : at === "/" ? page : null;
    if (body === null) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": at === "/" ? "text/html" : "text/javascript" });
    res.end(body);
  });
  const hostPort = await freePort();
  await new Promise((r) => host.listen(hostPort, "127.0.0.1", r));

  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  /** One whole game on the `version` wire, its final screen saved as `shot`. */
  const play = async (version, shot) => {
    const ok = (cond, what, detail) => check(cond, `[${version}] ${what}`, detail);
    const tab = await browser.newPage();
    await tab.setViewport({ width: 820, height: 520 });
    tab.on("console", (m) => m.type() === "error" && console.log(`[page] ${m.text()}`));
    tab.on("pageerror", (e) => console.log(`[page error] ${e.message}`));
    await tab.goto(`http://127.0.0.1:${hostPort}/?version=${version}`);
    await tab.waitForFunction(() => ["playing", "done", "failed"].includes(window.__host?.phase), { timeout: 60000 });
    const early = await tab.evaluate(() => window.__host.error);
    if (early) throw new Error(`the host page failed: ${early}`);
    const frame = await (await tab.$("#app")).contentFrame();

    const clicks = [];
    let mySymbol = null;
    for (let turn = 0; turn < 9; turn++) {
      await frame.waitForFunction(
        () => ["your-turn", "over"].includes(document.body.dataset.phase),
        { timeout: 60000 },
      );
      const phase = await frame.evaluate(() => document.body.dataset.phase);
      if (phase === "over") break;
      const { cells, you } = await frame.evaluate(() => ({
        cells: [...document.querySelectorAll("#board .cell")].map((b) => b.textContent || "."),
        you: document.getElementById("you").dataset.symbol,
      }));
      mySymbol = you;
      const pick = choose(cells, you);
      clicks.push(pick);
      console.log(`     the user (${you}) clicks cell ${Math.floor(pick / 3)},${pick % 3} on ${cells.join("")}`);
      // A real mouse click on the cell; on a loaded machine the first may land before the
      // frame has laid the board out, so it is repeated (at most 5 times) until the App
      // reacts. The App answers once per question, so a repeat cannot answer twice.
      const selector = `#cell-${Math.floor(pick / 3)}-${pick % 3}:not([disabled])`;
      let answered = false;
      for (let attempt = 0; attempt < 5 && !answered; attempt++) {
        const cell = await frame.waitForSelector(selector, { timeout: 10000 }).catch(() => null);
        if (cell) await cell.click().catch(() => {});
        answered = await frame
          .waitForFunction(() => document.body.dataset.phase !== "your-turn", { timeout: 3000 })
          .then(() => true, () => false);
      }
      if (!answered) throw new Error(`the App did not take the click on ${selector}`);
    }
    await tab.waitForFunction(() => ["done", "failed"].includes(window.__host.phase), { timeout: 60000 });
    await frame.waitForFunction(() => document.body.dataset.phase === "over", { timeout: 10000 });
    mkdirSync(path.dirname(shot), { recursive: true });
    await tab.screenshot({ path: shot });

    const state = await tab.evaluate(() => window.__host);
    const shown = await frame.evaluate(() => ({
      cells: [...document.querySelectorAll("#board .cell")].map((b) => b.textContent || ".").join(""),
      outcome: document.getElementById("outcome").textContent,
      result: document.body.dataset.result,
    }));
    ok(state.error === null, "the host page ran without errors", state.error ?? "");
    ok(state.appMime === "text/html;profile=mcp-app", "the tool's App is a text/html;profile=mcp-app resource", state.appMime);
    ok(state.appInfo?.name === "tracksuit-tictactoe-app", "the App completed ui/initialize over the app-bridge", JSON.stringify(state.appInfo));
    const r = state.result ?? {};
    ok(["user", "model", "draw"].includes(r.result), "the server reports a finished game", JSON.stringify(r));
    ok(state.forms === 0, "no elicitation fell back to the generic form", `forms=${state.forms}`);
    ok(state.forwarded.length === clicks.length && clicks.length > 0, "every PickMove went to the App and was answered by a click", `${state.forwarded.length} forwarded, ${clicks.length} clicks`);
    ok(state.forwarded.every((f) => typeof f.context?.board === "string" && f.context?.you === mySymbol && Array.isArray(f.context?.history)),
      "each PickMove carried its typed context (board, you, history)");
    const last = state.forwarded.at(-1)?.context?.history ?? [];
    ok(last.length === state.forwarded.at(-1)?.context?.board.replace(/[|.]/g, "").length, "the history matches the board it came with", JSON.stringify(last));
    const board = (r.board ?? "").replaceAll("|", "");
    ok(board === shown.cells, "the App shows the board the server reports", `${shown.cells} vs ${board}`);
    ok(clicks.every((i) => board[i] === r.you_played), "every clicked cell holds the user's symbol on the server's board", `${clicks} on ${board}`);
    ok(r.you_played === mySymbol, "the server's you_played is the symbol the App showed", `${r.you_played} / ${mySymbol}`);
    ok(r.moves === board.replaceAll(".", "").length, "the server's move count matches the board", String(r.moves));
    ok(shown.result === r.result, "the App shows the server's outcome", shown.outcome);
    console.log(`     [${version}] protocol ${state.protocolVersion}; outcome: ${r.result} after ${r.moves} moves (the user played ${r.you_played}); host model turns: ${state.samples}`);
    console.log(`     screenshot: ${shot}`);
    await tab.close();
  };
  // The SDK's default handshake (2025-11-25: questions as server→client requests), then the
  // modern wire (2026-07-28: questions as input_required rounds); one screenshot each.
  await play("2025-11-25", screenshot);
  await play("2026-07-28", screenshot.replace(/\.png$/, "-2026-07-28.png"));
} catch (e) {
  check(false, "the game ran to its end", String(e?.stack ?? e));
  for (const tab of (await browser?.pages().catch(() => [])) ?? []) {
    const state = await tab.evaluate(() => ({ host: window.__host, log: document.getElementById("log")?.innerText })).catch(() => null);
    if (state) console.log(`     page state: ${JSON.stringify(state.host)}\n     page log:\n${state.log}`);
  }
} finally {
  await browser?.close().catch(() => {});
  host?.close();
  server.kill();
}
console.log(failures === 0 ? "apps (browser): all checks passed" : `apps (browser): ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);

// Full tic-tac-toe games against the TypeScript SDK v2 client in MCP 2026-07-28: a scripted
// user in the elicitation handler (keyed elicitation `pick_move`) and a scripted model in
// the sampling handler, both playing the first free cell. Each question is one MRTR round.
//
// - `tictactoe` (the model moves by plain `ctx.sample()`, answering "row,col"): one round
//   per move, so a game (7 moves with this script, 9 at most) fits the client's default
//   cap of 10 retries. A cap below the game's length fails with the client's cap error.
// - `tictactoe_strategist` (the model moves in three rounds: two concurrent analysis
//   branches, `sample_tools` for a strategy, `sample_schema::<Cell>` for the move): a game
//   takes 13 or 15 rounds, more than the default cap, so it fails there with
//   INPUT_REQUIRED_ROUNDS_EXCEEDED and finishes with `inputRequired.maxRounds` raised.
//
// Usage: node tictactoe.mjs --url http://127.0.0.1:PORT/mcp | --stdio <tictactoe-binary>
import { MODERN, blocksOf, callsOf, check, connect, inputRequiredSince, run, target } from "./harness.mjs";

const t = target("tictactoe.mjs");
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const CAPABILITIES = { elicitation: { form: {} }, sampling: { tools: {} } };
const DEFAULT_CAP = 10;

const cellsOf = (board) => (board ?? "").replaceAll("|", "").split("");
const cell = (i) => ({ row: Math.floor(i / 3), col: i % 3 });

/** The board in the last message of a sampling request: `... board=X..|.O.|... ...`. */
function boardInPrompt(params) {
  const text = blocksOf(params.messages.at(-1)).filter((b) => b.type === "text").map((b) => b.text).join("");
  return (text.split("board=")[1] ?? "").split(/\s/)[0];
}

/** The scripted user and model. Both play the first free cell. */
function players() {
  const seen = { elicitations: 0, sampling: 0, moves: [] };
  const handlers = {
    async elicit(params) {
      seen.elicitations++;
      const board = params._meta?.["io.tracksuit/elicitation"]?.context?.board;
      const pick = cellsOf(board).indexOf(".");
      seen.moves.push({ who: "user", board, pick });
      return { action: "accept", content: cell(pick) };
    },
    async sample(params) {
      seen.sampling++;
      const board = boardInPrompt(params);
      const pick = cellsOf(board).indexOf(".");
      const tools = (params.tools ?? []).map((tool) => tool.name);
      const reply = (content, stopReason = "endTurn") => ({ role: "assistant", model: "scripted", stopReason, content });
      if (tools.includes("__schema__")) {
        // sample_schema::<Cell>: the move, as the input of the reserved tool.
        seen.moves.push({ who: "model", board, pick });
        return reply([{ type: "tool_use", id: `move-${seen.sampling}`, name: "__schema__", input: cell(pick) }], "toolUse");
      }
      if (tools.length) {
        // sample_tools: the strategist picks its first strategy.
        return reply([{ type: "tool_use", id: `strategy-${seen.sampling}`, name: tools[0], input: {} }], "toolUse");
      }
      if (params.messages.at(-1) && /^List /.test(blocksOf(params.messages.at(-1))[0]?.text ?? "")) {
        return reply({ type: "text", text: "nothing urgent" }); // an analysis branch
      }
      // The plain game's ctx.sample(): "row,col" as text.
      seen.moves.push({ who: "model", board, pick });
      return reply({ type: "text", text: `${cell(pick).row},${cell(pick).col}` });
    },
  };
  return { seen, handlers };
}

/** Checks a finished game's structured result against the rules and the moves we made. */
function checkGame(label, result, seen) {
  const s = result.structuredContent ?? {};
  const cells = cellsOf(s.board);
  const you = s.you_played;
  const model = you === "X" ? "O" : "X";
  const xs = cells.filter((c) => c === "X").length;
  const os = cells.filter((c) => c === "O").length;
  const winners = [...new Set(LINES.filter(([a, b, c]) => cells[a] !== "." && cells[a] === cells[b] && cells[b] === cells[c]).map(([a]) => cells[a]))];
  const expected = winners.length === 1 ? (winners[0] === you ? "user" : "model") : cells.includes(".") ? "unfinished" : "draw";
  check(`${label}: the game ended with a valid result`, !result.isError && ["user", "model", "draw"].includes(s.result), JSON.stringify(s));
  check(`${label}: the board is consistent`,
    cells.length === 9 && cells.every((c) => "XO.".includes(c)) && ["X", "O"].includes(you) &&
      xs - os >= 0 && xs - os <= 1 && s.moves === xs + os && winners.length <= 1 && s.result === expected,
    `board=${s.board} X=${xs} O=${os} moves=${s.moves} result=${s.result} (the board says ${expected})`);
  check(`${label}: every move the user and the model made is on the board`,
    seen.moves.length === s.moves && seen.moves.every((m) => cells[m.pick] === (m.who === "user" ? you : model)),
    seen.moves.map((m) => `${m.who}@${m.pick}`).join(" "));
}

/** Plays `tool` to the end; returns `{ result, error, requests, rounds, ms, seen }`. */
async function play(tool, maxRounds) {
  const p = players();
  const session = await connect(t, { version: MODERN, handlers: p.handlers, maxRounds, capabilities: CAPABILITIES });
  const started = Date.now();
  let result;
  let error;
  try {
    result = await session.client.callTool({ name: tool, arguments: {} });
  } catch (e) {
    error = e;
  }
  const out = {
    result,
    error,
    ms: Date.now() - started,
    requests: callsOf(session.wire, tool).length,
    rounds: inputRequiredSince(session.wire),
    seen: p.seen,
    version: session.client.getNegotiatedProtocolVersion(),
    dump: () => session.dump(tool),
  };
  await session.client.close();
  return out;
}

function summary(g) {
  const s = g.result?.structuredContent;
  return `${s ? `${s.result} (user ${s.you_played}) board=${s.board} in ${s.moves} moves` : `error ${g.error?.code}: ${g.error?.message}`}; ${g.requests} tools/call requests, ${g.rounds.length} input_required rounds, ${g.ms} ms`;
}

/** A whole game that must finish: checks it. */
function checkFinished(label, g) {
  console.log(`  ${label}: ${summary(g)}`);
  if (!check(`${label}: finished`, !g.error, g.error?.stack ?? "")) return false;
  check(`${label}: each round asked one question (all questions answered, one more request than rounds)`,
    g.requests === g.rounds.length + 1 && g.rounds.every((w) => Object.keys(w.message.result.inputRequests ?? {}).length >= 1),
    `${g.rounds.length} rounds, ${g.requests} requests`);
  checkGame(label, g.result, g.seen);
  const keys = [...new Set(g.rounds.flatMap((w) => Object.keys(w.message.result.inputRequests ?? {})))];
  check(`${label}: the user's moves are asked under the key pick_move`, keys.some((k) => k.startsWith("pick_move")), keys.join(" "));
  return true;
}

await run("tictactoe.mjs", t.label, async () => {
  // 1. The plain game with the client's default cap: one round per move, it fits.
  const plain = await play("tictactoe");
  check(`${t.label}: negotiated ${MODERN}`, plain.version === MODERN, String(plain.version));
  if (checkFinished(`${t.label}: tictactoe, default cap`, plain)) {
    check(`${t.label}: tictactoe: one round per move, within the default cap`,
      plain.rounds.length === plain.result.structuredContent.moves && plain.rounds.length <= DEFAULT_CAP,
      `${plain.rounds.length} rounds for ${plain.result.structuredContent.moves} moves`);
  }

  // 2. A cap below the game's length: the client gives up with its typed cap error after
  //    cap + 1 requests (the cap counts retries).
  const capped = await play("tictactoe", 1);
  check(`${t.label}: tictactoe with maxRounds 1 fails with INPUT_REQUIRED_ROUNDS_EXCEEDED after 2 requests`,
    capped.error?.code === "INPUT_REQUIRED_ROUNDS_EXCEEDED" && capped.requests === 2, summary(capped));

  // 3. The strategist: three rounds per model move, more than the default cap.
  const strat = await play("tictactoe_strategist");
  console.log(`  ${t.label}: tictactoe_strategist, default cap: ${summary(strat)}`);
  check(`${t.label}: tictactoe_strategist with the default cap fails with INPUT_REQUIRED_ROUNDS_EXCEEDED`,
    strat.error?.code === "INPUT_REQUIRED_ROUNDS_EXCEEDED" && strat.requests === DEFAULT_CAP + 1, summary(strat));
  const raised = await play("tictactoe_strategist", 40);
  if (checkFinished(`${t.label}: tictactoe_strategist, maxRounds 40`, raised)) {
    const modelMoves = raised.seen.moves.filter((m) => m.who === "model").length;
    const userMoves = raised.seen.moves.length - modelMoves;
    check(`${t.label}: tictactoe_strategist: three rounds per model move, one per user move, more than the default cap`,
      raised.rounds.length === 3 * modelMoves + userMoves && raised.rounds.length > DEFAULT_CAP,
      `${raised.rounds.length} rounds = 3 x ${modelMoves} + ${userMoves}`);
    const branches = raised.rounds.filter((w) => Object.keys(w.message.result.inputRequests ?? {}).length === 2).length;
    check(`${t.label}: tictactoe_strategist: the two analysis branches are asked together, in one round`, branches === modelMoves,
      `${branches} two-question rounds for ${modelMoves} model moves`);
  }
});

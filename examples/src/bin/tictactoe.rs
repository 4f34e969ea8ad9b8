//! Tic-tac-toe against the client's model, the seed's worked example.
//!
//! `tictactoe` is a handoff tool: `before` assigns X / O at random, `client` alternates
//! model turns (`ctx.sample` with the whole game as history) and user turns (the keyed
//! elicitation `PickMove`, whose exchange joins the history with the board as its
//! arguments), and `after` shapes the result. `tictactoe_strategist` plays the model's turns
//! differently: two branches size up the board concurrently, `sample_tools` picks an
//! offensive or defensive strategy, and `sample_schema::<Cell>` returns the move. With
//! `{"constrained": true}` a model turn offers only the free cells, as structured output
//! (the `__schema__` tool with one `anyOf` branch per free cell): a small model then always
//! names a legal move, and every move is its own.
//!
//! The demo plays with a built-in model, or with a real one through `tracksuit-providers`
//! when given `--model <OpenAI-compatible base URL>` (or `TRACKSUIT_MODEL_URL`); the model
//! name and key come from `--model-name` / `OPENAI_MODEL` and `OPENAI_API_KEY`.
//!
//! Both games are linked to an MCP App (`ui://tictactoe/board.html`, SEP-1865): a host with
//! Apps support renders the board next to the call and forwards `PickMove` to it, so the
//! user answers by clicking a cell; other hosts show `PickMove`'s plain form.
//!
//! ```text
//! cargo run -p tracksuit-examples --bin tictactoe              # demo: a full game, in process
//! cargo run -p tracksuit-examples --bin tictactoe -- --model http://127.0.0.1:8080/v1
//! cargo run -p tracksuit-examples --bin tictactoe -- --stdio   # serve over stdio
//! cargo run -p tracksuit-examples --bin tictactoe -- --port 8003
//! ```

use clap::Parser;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tracksuit::apps::UiResource;
use tracksuit::client::Client;
use tracksuit::host::connect_in_memory;
use tracksuit::host::http::HttpOptions;
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicited, Elicits, Json, PhaseCtx, Server, ToolError, mcp_tool};
use tracksuit_providers::{OpenAi, ToolMode, handler};

#[derive(Parser)]
struct Args {
    /// Serve over stdio.
    #[arg(long)]
    stdio: bool,
    /// Serve Streamable HTTP on this port.
    #[arg(long)]
    port: Option<u16>,
    /// Demo against a real model: an OpenAI-compatible base URL (e.g. a local llama.cpp
    /// server's `http://127.0.0.1:8080/v1`) instead of the built-in model.
    #[arg(long, env = "TRACKSUIT_MODEL_URL")]
    model: Option<String>,
    /// The model name sent to `--model` (default `OPENAI_MODEL`, else `local`).
    #[arg(long, env = "OPENAI_MODEL", default_value = "local")]
    model_name: String,
    /// The real model has native tool calls (default: tools go as a JSON-schema choice).
    #[arg(long)]
    native_tools: bool,
    /// Do not pause between the demo's steps (pacing is also off when stdout is not a
    /// terminal).
    #[arg(long)]
    no_pace: bool,
}

/// A cell, as the user or the model names it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Elicits, schemars::JsonSchema)]
struct Cell {
    /// Row, 0 to 2
    #[elicit(min = 0, max = 2)]
    #[schemars(range(max = 2))]
    row: u8,
    /// Column, 0 to 2
    #[elicit(min = 0, max = 2)]
    #[schemars(range(max = 2))]
    col: u8,
}

/// What the game may ask the user.
#[derive(Elicits)]
enum GameKeys {
    /// Your move: pick a free cell.
    #[elicit(response = Cell)]
    PickMove {
        /// The board, rows separated by `|`, `.` for free cells.
        board: String,
        /// Your symbol.
        you: char,
        /// The moves so far, oldest first (`X 1,1`).
        history: Vec<String>,
    },
}

/// The board: 9 cells, row by row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Board([char; 9]);

impl Board {
    fn new() -> Self {
        Board(['.'; 9])
    }

    /// `X..|.O.|...`
    fn compact(&self) -> String {
        self.0
            .chunks(3)
            .map(|r| r.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("|")
    }

    fn pretty(&self) -> String {
        self.0
            .chunks(3)
            .map(|r| {
                r.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn free(&self, cell: Cell) -> bool {
        cell.row < 3 && cell.col < 3 && self.0[(cell.row * 3 + cell.col) as usize] == '.'
    }

    fn play(&mut self, cell: Cell, symbol: char) {
        self.0[(cell.row * 3 + cell.col) as usize] = symbol;
    }

    fn first_free(&self) -> Option<Cell> {
        self.0.iter().position(|c| *c == '.').map(|i| Cell {
            row: (i / 3) as u8,
            col: (i % 3) as u8,
        })
    }

    fn winner(&self) -> Option<char> {
        const LINES: [[usize; 3]; 8] = [
            [0, 1, 2],
            [3, 4, 5],
            [6, 7, 8],
            [0, 3, 6],
            [1, 4, 7],
            [2, 5, 8],
            [0, 4, 8],
            [2, 4, 6],
        ];
        LINES.iter().find_map(|l| {
            let c = self.0[l[0]];
            (c != '.' && c == self.0[l[1]] && c == self.0[l[2]]).then_some(c)
        })
    }

    fn full(&self) -> bool {
        !self.0.contains(&'.')
    }
}

/// Who plays what; decided in `before`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Symbols {
    user: char,
    model: char,
    /// Model turns offer only the free cells.
    #[serde(default)]
    constrained: bool,
}

/// How the game ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Outcome {
    board: Board,
    winner: Option<char>,
    moves: usize,
    abandoned: bool,
    /// Model turns whose cell the server picked because the model's answers were unusable.
    #[serde(default)]
    fallbacks: usize,
}

/// The final result.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct GameResult {
    /// `"user"`, `"model"`, `"draw"` or `"abandoned"`.
    result: String,
    /// The final board.
    board: String,
    /// Moves played.
    moves: usize,
    /// The user's symbol.
    you_played: char,
    /// Model turns the server had to play itself (the model's answers were unusable).
    model_fallbacks: usize,
}

/// How to play.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct NewGame {
    /// Offer the model only the free cells, as structured output (for small models).
    #[serde(default)]
    constrained: Option<bool>,
}

/// Picks X or O for the user without a dependency: the low bits of the clock.
fn coin() -> bool {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() & 1 == 0)
        .unwrap_or(true)
}

fn parse_cell(text: &str) -> Option<Cell> {
    let digits: Vec<u8> = text
        .chars()
        .filter_map(|c| c.to_digit(10))
        .map(|d| d as u8)
        .collect();
    match digits[..] {
        [row, col, ..] => Some(Cell { row, col }),
        _ => None,
    }
}

fn model_prompt(board: &Board, symbol: char) -> String {
    format!(
        "You play {symbol}. Board (rows separated by |, . is free): board={}\nReply with your move as row,col (0-2).",
        board.compact()
    )
}

/// How a model turn is played.
#[derive(Clone, Copy)]
enum Style {
    Plain,
    Strategist,
    Constrained,
}

/// A model turn's cell, and whether the server had to pick it.
type Turn = (Cell, bool);

/// The interactive loop both variants share. Deterministic given its inputs and the
/// answers it receives (replayable from the exchange log).
async fn play_game(
    symbols: &Symbols,
    ctx: &Ctx<GameKeys>,
    style: Style,
) -> Result<Outcome, ToolError> {
    let mut board = Board::new();
    let mut history: Vec<SamplingMessage> = Vec::new();
    let mut moves = 0;
    let mut fallbacks = 0;
    let mut played: Vec<String> = Vec::new();
    let mut turn = 'X';
    loop {
        if let Some(w) = board.winner() {
            return Ok(Outcome {
                board,
                winner: Some(w),
                moves,
                abandoned: false,
                fallbacks,
            });
        }
        if board.full() {
            return Ok(Outcome {
                board,
                winner: None,
                moves,
                abandoned: false,
                fallbacks,
            });
        }
        if turn == symbols.model {
            let (cell, fallback) = match style {
                Style::Plain => model_move(ctx, &board, symbols.model, &mut history).await?,
                Style::Strategist => {
                    strategist_move(ctx, &board, symbols.model, &mut history).await?
                }
                Style::Constrained => {
                    constrained_move(ctx, &board, symbols.model, &mut history).await?
                }
            };
            fallbacks += usize::from(fallback);
            board.play(cell, symbols.model);
            played.push(format!("{} {},{}", symbols.model, cell.row, cell.col));
        } else {
            let ask = GameKeys::pick_move(board.compact(), symbols.user, played.clone());
            match ctx.elicit(ask).await? {
                Elicited::Accept { value, exchange } if board.free(value) => {
                    history.extend(
                        exchange
                            .with_arguments(|c| match c {
                                GameKeys::PickMove { board, .. } => json!({ "board": board }),
                            })
                            .messages(),
                    );
                    board.play(value, symbols.user);
                    played.push(format!("{} {},{}", symbols.user, value.row, value.col));
                }
                Elicited::Accept { value, .. } => {
                    ctx.log(
                        LoggingLevel::Warning,
                        format!("cell {},{} is taken; try again", value.row, value.col),
                    )
                    .await;
                    continue;
                }
                Elicited::Decline | Elicited::Cancel => {
                    return Ok(Outcome {
                        board,
                        winner: None,
                        moves,
                        abandoned: true,
                        fallbacks,
                    });
                }
            }
        }
        moves += 1;
        ctx.log(
            LoggingLevel::Info,
            format!("move {moves} ({turn}):\n{}", board.pretty()),
        )
        .await;
        turn = if turn == 'X' { 'O' } else { 'X' };
    }
}

/// A plain model turn: sample with the game so far; invalid answers are re-asked twice,
/// then the first free cell is played (the game never crashes on a bad move).
async fn model_move(
    ctx: &Ctx<GameKeys>,
    board: &Board,
    symbol: char,
    history: &mut Vec<SamplingMessage>,
) -> Result<Turn, ToolError> {
    let mut prompt = model_prompt(board, symbol);
    for _ in 0..3 {
        let out = ctx
            .sample()
            .system("You play tic-tac-toe.")
            .history(history.clone())
            .prompt(prompt.clone())
            .max_tokens(20)
            .await?;
        history.extend(out.messages.clone());
        match parse_cell(&out.text()) {
            Some(cell) if board.free(cell) => return Ok((cell, false)),
            _ => prompt = format!("That is not a free cell. {}", model_prompt(board, symbol)),
        }
    }
    fallback(board)
}

/// The server's own pick when the model's answers were unusable: the first free cell.
fn fallback(board: &Board) -> Result<Turn, ToolError> {
    board
        .first_free()
        .map(|cell| (cell, true))
        .ok_or_else(|| ToolError::new("no free cell"))
}

/// A constrained turn: the `__schema__` tool's schema is an `anyOf` with one branch per free
/// cell, so a structured-output model can only name a legal move. Re-asked twice if the
/// answer is still unusable (a client without structured output), then the first free cell.
async fn constrained_move(
    ctx: &Ctx<GameKeys>,
    board: &Board,
    symbol: char,
    history: &mut Vec<SamplingMessage>,
) -> Result<Turn, ToolError> {
    let free: Vec<Value> = (0..9u8)
        .map(|i| Cell {
            row: i / 3,
            col: i % 3,
        })
        .filter(|c| board.free(*c))
        .map(|c| {
            json!({
                "type": "object",
                "properties": { "row": { "const": c.row }, "col": { "const": c.col } },
                "required": ["row", "col"],
                "additionalProperties": false,
            })
        })
        .collect();
    let schema = json!({ "type": "object", "anyOf": free });
    let mut tool = Tool::new(
        tracksuit::sampling::SCHEMA_TOOL,
        schema.as_object().cloned().unwrap_or_default(),
    );
    tool.description = Some("Your move: one of the free cells.".into());
    let mut prompt = model_prompt(board, symbol);
    for _ in 0..3 {
        let out = ctx
            .sample()
            .system("You play tic-tac-toe.")
            .history(history.clone())
            .prompt(prompt.clone())
            .tool(tool.clone())
            .tool_choice(ToolChoiceMode::Required)
            // Room for the JSON and the whitespace a grammar lets a small model add.
            .max_tokens(64)
            .await?;
        history.extend(out.messages.clone());
        let calls = out.tool_calls();
        if !calls.is_empty() {
            let results = calls.iter().map(|c| c.result("played")).collect();
            history.push(tracksuit::sampling::tool_results(results));
        }
        let picked = calls.iter().find_map(|c| c.input_as::<Cell>().ok());
        match picked {
            Some(cell) if board.free(cell) => return Ok((cell, false)),
            _ => prompt = format!("That is not a free cell. {}", model_prompt(board, symbol)),
        }
    }
    fallback(board)
}

/// A strategist turn: two concurrent branches size up the board, `sample_tools` picks a
/// strategy, `sample_schema::<Cell>` gives the move.
async fn strategist_move(
    ctx: &Ctx<GameKeys>,
    board: &Board,
    symbol: char,
    history: &mut Vec<SamplingMessage>,
) -> Result<Turn, ToolError> {
    let view = model_prompt(board, symbol);
    let (threats, chances) = tokio::try_join!(
        ctx.branch(|b| {
            let v = view.clone();
            async move {
                b.sample()
                    .prompt(format!("List the opponent's threats. {v}"))
                    .max_tokens(60)
                    .await
            }
        }),
        ctx.branch(|b| {
            let v = view.clone();
            async move {
                b.sample()
                    .prompt(format!("List your winning chances. {v}"))
                    .max_tokens(60)
                    .await
            }
        }),
    )?;
    let notes = format!("Threats: {}\nChances: {}", threats?.text(), chances?.text());
    let mut offensive = Tool::new("offensive", Default::default());
    offensive.description = Some("Play to win this turn or set up a win".into());
    let mut defensive = Tool::new("defensive", Default::default());
    defensive.description = Some("Block the opponent's threat".into());
    let choice = ctx
        .sample_tools()
        .history(history.clone())
        .prompt(format!("{notes}\nChoose a strategy. {view}"))
        .tools([offensive, defensive])
        .await?;
    history.extend(choice.messages.clone());
    let results = choice
        .parsed
        .iter()
        .map(|c| c.result(format!("strategy {} chosen", c.name)))
        .collect();
    history.push(tracksuit::sampling::tool_results(results));
    let mv = ctx
        .sample_schema::<Cell>()
        .history(history.clone())
        .prompt(format!("Now your move. {view}"))
        .await?;
    history.extend(mv.messages.clone());
    if board.free(mv.parsed) {
        Ok((mv.parsed, false))
    } else {
        ctx.log(
            LoggingLevel::Warning,
            "the model picked a taken cell; playing the first free one",
        )
        .await;
        fallback(board)
    }
}

fn shape(symbols: &Symbols, out: &Outcome) -> Json<GameResult> {
    let result = match (out.abandoned, out.winner) {
        (true, _) => "abandoned",
        (false, Some(w)) if w == symbols.user => "user",
        (false, Some(_)) => "model",
        (false, None) => "draw",
    };
    Json(GameResult {
        result: result.into(),
        board: out.board.compact(),
        moves: out.moves,
        you_played: symbols.user,
        model_fallbacks: out.fallbacks,
    })
}

/// Play tic-tac-toe against the client's model.
struct TicTacToe;

/// Play tic-tac-toe against the client's model.
#[mcp_tool(elicits = GameKeys, name = "tictactoe")]
impl TicTacToe {
    async fn before(game: NewGame, ctx: &PhaseCtx) -> Result<Symbols, ToolError> {
        let constrained = game.constrained.unwrap_or(false);
        let symbols = if coin() {
            Symbols {
                user: 'X',
                model: 'O',
                constrained,
            }
        } else {
            Symbols {
                user: 'O',
                model: 'X',
                constrained,
            }
        };
        ctx.log(LoggingLevel::Info, format!("you play {}", symbols.user))
            .await;
        Ok(symbols)
    }

    async fn client(symbols: &Symbols, ctx: &Ctx<GameKeys>) -> Result<Outcome, ToolError> {
        let style = if symbols.constrained {
            Style::Constrained
        } else {
            Style::Plain
        };
        play_game(symbols, ctx, style).await
    }

    async fn after(symbols: Symbols, out: Outcome, _ctx: &PhaseCtx) -> Json<GameResult> {
        shape(&symbols, &out)
    }
}

/// Tic-tac-toe against a model that thinks in branches and tools.
struct Strategist;

/// Play tic-tac-toe against a strategist: concurrent analysis branches, a strategy tool,
/// then a structured move.
#[mcp_tool(elicits = GameKeys, name = "tictactoe_strategist")]
impl Strategist {
    async fn before(_game: NewGame, _ctx: &PhaseCtx) -> Result<Symbols, ToolError> {
        Ok(if coin() {
            Symbols {
                user: 'X',
                model: 'O',
                constrained: false,
            }
        } else {
            Symbols {
                user: 'O',
                model: 'X',
                constrained: false,
            }
        })
    }

    async fn client(symbols: &Symbols, ctx: &Ctx<GameKeys>) -> Result<Outcome, ToolError> {
        play_game(symbols, ctx, Style::Strategist).await
    }

    async fn after(symbols: Symbols, out: Outcome, _ctx: &PhaseCtx) -> Json<GameResult> {
        shape(&symbols, &out)
    }
}

/// Requests being served right now, besides this one (the interop tests check it returns to
/// zero after a cancelled game).
#[mcp_tool]
async fn server_stats(ctx: &Ctx) -> String {
    json!({ "inFlight": ctx.server().in_flight_requests().saturating_sub(1) }).to_string()
}

/// The MCP App both games link to: the board, drawn from `PickMove`'s context and answered
/// by clicking a cell (see `examples/apps/tictactoe.html`). Offline: no CSP origins.
const BOARD_APP: &str = "ui://tictactoe/board.html";

fn server() -> Server {
    let app = UiResource::new(
        BOARD_APP,
        "tictactoe-board",
        include_str!("../../apps/tictactoe.html"),
    )
    .description("The tic-tac-toe board: answers PickMove with a click on a cell.")
    .prefers_border(true);
    Server::new(Implementation::new(
        "tracksuit-tictactoe",
        env!("CARGO_PKG_VERSION"),
    ))
    .ui_resource(app)
    .app_tool(TicTacToe, BOARD_APP)
    .app_tool(Strategist, BOARD_APP)
    .tool(server_stats)
}

/// The built-in model of the demo: wins if it can, blocks the user's win, else takes the
/// centre, a corner, then any free cell.
fn demo_model(params: &CreateMessageRequestParams) -> Value {
    let prompt = last_text(params);
    let board = prompt
        .split("board=")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or(".........")
        .replace('|', "");
    let me = prompt
        .split("You play ")
        .nth(1)
        .and_then(|r| r.chars().next())
        .unwrap_or('X');
    let cells: Vec<char> = board.chars().collect();
    let pick = best_move(&cells, me);
    let (row, col) = (pick / 3, pick % 3);
    let tools: Vec<String> = params
        .tools
        .iter()
        .flatten()
        .map(|t| t.name.clone())
        .collect();
    let content = if tools.iter().any(|t| t == "__schema__") {
        json!([{ "type": "tool_use", "id": "m1", "name": "__schema__", "input": { "row": row, "col": col } }])
    } else if let Some(t) = tools.first() {
        json!([{ "type": "tool_use", "id": "s1", "name": t, "input": {} }])
    } else {
        json!({ "type": "text", "text": format!("{row},{col}") })
    };
    json!({ "role": "assistant", "model": "built-in", "content": content })
}

/// The text of a sampling request's last message.
fn last_text(params: &CreateMessageRequestParams) -> String {
    params
        .messages
        .last()
        .and_then(|m| {
            m.content
                .iter()
                .find_map(|c| c.as_text())
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

/// The cell (0..9) `me` should play on `cells`: a win, a block, the centre, a corner, the
/// first free cell.
fn best_move(cells: &[char], me: char) -> usize {
    const LINES: [[usize; 3]; 8] = [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
        [0, 4, 8],
        [2, 4, 6],
    ];
    let free = |i: usize| cells.get(i) == Some(&'.');
    let completing = |who: char| {
        LINES.iter().find_map(|line| {
            let mine = line.iter().filter(|&&i| cells.get(i) == Some(&who)).count();
            let gap = line.iter().copied().find(|&i| free(i));
            (mine == 2).then_some(gap).flatten()
        })
    };
    let them = if me == 'X' { 'O' } else { 'X' };
    completing(me)
        .or_else(|| completing(them))
        .or_else(|| free(4).then_some(4))
        .or_else(|| [0, 2, 6, 8].into_iter().find(|&i| free(i)))
        .or_else(|| (0..9).find(|&i| free(i)))
        .unwrap_or(0)
}

/// The built-in user of the demo: the last free cell.
fn demo_user(params: &ElicitRequestParams) -> Value {
    let ElicitRequestParams::Form(form) = params else {
        return json!({ "action": "decline" });
    };
    let board = form
        .meta
        .as_ref()
        .and_then(|m| {
            m["io.tracksuit/elicitation"]["context"]["board"]
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_default()
        .replace('|', "");
    let pick = board
        .chars()
        .collect::<Vec<_>>()
        .iter()
        .rposition(|c| *c == '.')
        .unwrap_or(0);
    json!({ "action": "accept", "content": { "row": pick / 3, "col": pick % 3 } })
}

/// Prints a step of the demo, then pauses (unless pacing is off) so a person can follow.
#[derive(Clone, Copy)]
struct Narrator {
    pace: bool,
}

impl Narrator {
    async fn say(self, text: String) {
        println!("{text}");
        if self.pace {
            tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        }
    }
}

/// `X.O|...|..O` as three rows.
fn pretty_compact(board: &str) -> String {
    board
        .split('|')
        .map(|row| row.chars().map(String::from).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A sampling reply, briefly: the tool the model called with its input, or its text.
fn reply_summary(reply: &Value) -> String {
    let content = &reply["content"];
    let first = if content.is_array() {
        &content[0]
    } else {
        content
    };
    match first["type"].as_str() {
        Some("tool_use") => format!(
            "calls `{}` with {}",
            first["name"].as_str().unwrap_or("?"),
            first["input"]
        ),
        _ => format!("says {:?}", first["text"].as_str().unwrap_or("")),
    }
}

async fn demo(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    use std::io::IsTerminal as _;
    let narrator = Narrator {
        pace: !args.no_pace && std::io::stdout().is_terminal(),
    };
    let user = Client::builder().on_elicitation(move |p| async move {
        let answer = demo_user(&p);
        if let ElicitRequestParams::Form(form) = &p {
            let board = form
                .meta
                .as_ref()
                .and_then(|m| {
                    m["io.tracksuit/elicitation"]["context"]["board"]
                        .as_str()
                        .map(str::to_owned)
                })
                .unwrap_or_default();
            narrator
                .say(format!(
                    "  server → user (elicitation): {:?}  board {board}\n  user → server: {}",
                    form.message, answer["content"]
                ))
                .await;
        }
        serde_json::from_value(answer).map_err(ErrorObject::internal)
    });
    let builder = match &args.model {
        Some(url) => {
            let model = OpenAi::builder()
                .base_url(url)
                .model(&args.model_name)
                .from_env()
                .tool_mode(if args.native_tools {
                    ToolMode::Native
                } else {
                    ToolMode::JsonChoice
                })
                .build()?;
            let model = std::sync::Arc::new(handler(model));
            // A small local model can be slow: no per-request deadline short of a game.
            user.timeout(std::time::Duration::from_secs(900))
                .on_sampling(move |p| {
                    let model = model.clone();
                    async move {
                        narrator
                            .say(format!("  server → model (sampling): {:?}", last_text(&p)))
                            .await;
                        let reply = (*model)(p).await;
                        if let Ok(r) = &reply {
                            let r = serde_json::to_value(r).unwrap_or_default();
                            narrator
                                .say(format!("  model → server: {}", reply_summary(&r)))
                                .await;
                        }
                        reply
                    }
                })
        }
        None => user.on_sampling(move |p| async move {
            narrator
                .say(format!("  server → model (sampling): {:?}", last_text(&p)))
                .await;
            let reply = demo_model(&p);
            narrator
                .say(format!("  model → server: {}", reply_summary(&reply)))
                .await;
            serde_json::from_value(reply).map_err(ErrorObject::internal)
        }),
    };
    let client = connect_in_memory(server().build()?, builder).await?;
    let arguments = match &args.model {
        Some(url) => {
            println!(
                "tic-tac-toe: the model {} at {url} against a built-in user\n",
                args.model_name
            );
            json!({ "constrained": true })
        }
        None => {
            println!(
                "tic-tac-toe: the built-in model against a built-in user (no API key needed)\n"
            );
            json!({})
        }
    };
    println!("client → server: tools/call tictactoe {arguments}\n");
    let mut notes = client.notifications();
    let (done, mut finished) = tokio::sync::oneshot::channel::<()>();
    let printer = tokio::spawn(async move {
        let print = |n: JsonRpcNotification| {
            if n.method == methods::MESSAGE
                && let Some(text) = n.params.as_ref().and_then(|p| p["data"].as_str())
            {
                println!("{text}\n");
            }
        };
        loop {
            tokio::select! {
                biased;
                n = notes.recv() => match n {
                    Ok(n) => print(n),
                    Err(_) => break,
                },
                _ = &mut finished => {
                    // The game's logs arrived before its result: print what is queued.
                    while let Ok(n) = notes.try_recv() {
                        print(n);
                    }
                    break;
                }
            }
        }
    });
    let result = client.call_tool("tictactoe", arguments).await?;
    let _ = done.send(());
    let _ = printer.await;
    // A `Value`, so a missing field reads as `null` (a failed game has no structured result).
    let r = Value::Object(result.structured_content.clone().unwrap_or_default());
    if let Some(board) = r["board"].as_str() {
        println!("final board:\n{}\n", pretty_compact(board));
    }
    let user_symbol = r["you_played"]
        .as_str()
        .and_then(|s| s.chars().next())
        .unwrap_or('?');
    let model_symbol = if user_symbol == 'X' { 'O' } else { 'X' };
    match r["result"].as_str() {
        Some("user") => println!("{user_symbol} wins (the user)"),
        Some("model") => println!("{model_symbol} wins (the model)"),
        Some("draw") => println!("draw"),
        _ => println!("the game was abandoned"),
    }
    println!(
        "result: {} after {} moves (the user played {}); model moves the server had to pick: {}",
        r["result"], r["moves"], r["you_played"], r["model_fallbacks"]
    );
    if result.is_error == Some(true) {
        return Err(format!("the game failed: {:?}", result.content).into());
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    if args.stdio {
        return Ok(server().serve_stdio().await?);
    }
    if let Some(port) = args.port {
        eprintln!("tracksuit tic-tac-toe on http://127.0.0.1:{port}/mcp");
        return Ok(server()
            .serve_http_with(("127.0.0.1", port), HttpOptions::default())
            .await?);
    }
    demo(&args).await
}

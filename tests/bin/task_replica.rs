//! A tracksuit server process for the replay test (`tests/replay.rs`): Streamable HTTP on
//! `127.0.0.1:<port>`, tasks in the SQLite file `<db>`, and one handoff tool, `journey`,
//! whose `before` and `after` phases append a line to `<dir>/before.log` and
//! `<dir>/after.log`, and whose `client` phase, between its two questions, stamps the
//! journey in a once block that appends to `<dir>/once.log` (so runs are counted across
//! processes). The sealed-state keys come
//! from `TRACKSUIT_STATE_KEYS`, shared by the processes of a test.
//!
//! ```text
//! task_replica <port> <db> <dir>
//! ```

use std::io::Write as _;
use std::path::PathBuf;
use tracksuit::protocol::Implementation;
use tracksuit::task::SqliteTaskStore;
use tracksuit::{Ctx, Elicits, PhaseCtx, Server, ToolError, mcp_tool};

/// A word.
#[derive(serde::Deserialize, Elicits)]
struct Word {
    /// A word
    word: String,
}

/// Where the phase logs go.
static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

fn append(file: &str, line: &str) -> Result<(), ToolError> {
    let dir = DIR
        .get()
        .ok_or_else(|| ToolError::new("no log directory"))?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(file))
        .map_err(|e| ToolError::new(e.to_string()))?;
    writeln!(f, "{line}").map_err(|e| ToolError::new(e.to_string()))
}

/// Asks two words between a logged `before` and `after`.
struct Journey;

/// A journey of two questions.
#[mcp_tool(name = "journey", task_support = "optional", scopes = ["travel"])]
impl Journey {
    async fn before(args: Start, _ctx: &PhaseCtx) -> Result<Origin, ToolError> {
        append("before.log", &format!("pid {}", std::process::id()))?;
        Ok(Origin(format!("from {}", args.from)))
    }

    async fn client(state: &Origin, ctx: &Ctx) -> Result<Vec<String>, ToolError> {
        // Replayed in whichever process runs the task: it must run as its principal.
        let who = ctx.principal().map_or("nobody", |p| p.subject.as_str());
        let mut words = vec![format!("{} for {who}", state.0)];
        for n in 1..=2 {
            let answer = ctx.elicit_form::<Word>(format!("stop {n}?")).await?;
            words.push(answer.accepted().map(|w| w.word).unwrap_or_default());
            if n == 1 {
                // A side effect between the questions: once, whichever process replays this.
                let stamp = ctx
                    .once("stamp", async {
                        append("once.log", &format!("pid {}", std::process::id()))
                            .map(|()| std::process::id())
                            .map_err(|_| "could not write once.log".to_owned())
                    })
                    .await?
                    .map_err(ToolError::new)?;
                words.push(format!("stamped by {stamp}"));
            }
        }
        Ok(words)
    }

    async fn after(
        _state: Origin,
        words: Vec<String>,
        _ctx: &PhaseCtx,
    ) -> Result<String, ToolError> {
        append("after.log", &format!("pid {}", std::process::id()))?;
        Ok(words.join(" / "))
    }
}

/// What `before` hands on.
#[derive(serde::Serialize, serde::Deserialize)]
struct Origin(String);

/// Where the journey starts.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    /// The starting point
    from: String,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, port, db, dir] = args.as_slice() else {
        eprintln!("usage: task_replica <port> <db> <dir>");
        return std::process::ExitCode::from(2);
    };
    let _ = DIR.set(PathBuf::from(dir));
    let store = match SqliteTaskStore::open(db) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("task_replica: {e}");
            return std::process::ExitCode::from(3);
        }
    };
    let server = match Server::new(Implementation::new("task-replica", "1"))
        .task_store(store)
        .tool(Journey)
        .build()
    {
        Ok(server) => server,
        Err(e) => {
            eprintln!("task_replica: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    eprintln!("task_replica {} on 127.0.0.1:{port}", std::process::id());
    // The test's stand-in for an authentication layer: `X-Test-User: alice` is alice,
    // holding the `travel` scope.
    let app = tracksuit::host::http::StreamableHttp::new(server, Default::default())
        .router("/mcp")
        .layer(tower::util::MapRequestLayer::new(
            |mut request: axum::http::Request<axum::body::Body>| {
                let user = request
                    .headers()
                    .get("x-test-user")
                    .and_then(|v| v.to_str().ok());
                if let Some(user) = user.map(str::to_owned) {
                    let principal = tracksuit::Principal::new(user).with_scopes(["travel"]);
                    request.extensions_mut().insert(principal);
                }
                request
            },
        ));
    let listener = match tokio::net::TcpListener::bind((
        "127.0.0.1",
        port.parse::<u16>().unwrap_or(0),
    ))
    .await
    {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("task_replica: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    match tracksuit::host::http::serve(listener, app).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("task_replica: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

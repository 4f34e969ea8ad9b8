//! A small ledger in SQLite: side effects in tools that ask the user, exactly once in either
//! protocol era.
//!
//! - `dedupe` looks for duplicate entries and asks before deleting each one. A 2025-11-25
//!   session runs the tool once; a 2026-07-28 client replays it from the top every round.
//!   The lookup and every delete are `ctx.once` blocks, so on both each duplicate is
//!   deleted once, and the replays see the rows the first lookup found.
//! - `transfer` is a handoff tool declared in the server block, so its phases reach the
//!   database through `&self`: `before` checks the accounts and the balance, `client` asks
//!   the user to confirm (and writes nothing), `after` moves the money, once per call in
//!   either era, and a final round re-sent verbatim gets the same result without moving it
//!   again.
//! - `ledger_stats` counts what really happened: the entries left, the balances, and the
//!   audit rows every delete and transfer writes in the same transaction (one per statement
//!   executed).
//! - `ledger_reset` puts the seed back (three entries, two of them with a duplicate; three
//!   accounts).
//!
//! ```text
//! cargo run -p tracksuit-examples --bin ledger                  # demo: both eras, in process
//! cargo run -p tracksuit-examples --bin ledger -- --port 8004   # serve over HTTP
//! cargo run -p tracksuit-examples --bin ledger -- --stdio       # serve over stdio
//! ```

use clap::Parser;
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Mutex;
use tracksuit::client::{Client, Era, HttpTransport};
use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
use tracksuit::protocol::{ElicitRequestParams, ErrorObject};
use tracksuit::{Ctx, Elicits, Json, PhaseCtx, Server, ToolError, mcp_server};

#[derive(Parser)]
struct Args {
    /// Serve over stdio instead of running the demo.
    #[arg(long)]
    stdio: bool,
    /// Serve over HTTP on this port instead of running the demo.
    #[arg(long)]
    port: Option<u16>,
    /// The SQLite database file (default: in memory).
    #[arg(long)]
    db: Option<String>,
}

/// The ledger: one SQLite connection, shared by every call.
struct Ledger {
    db: Mutex<Connection>,
}

/// An entry that repeats an earlier one (same account, amount and memo).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Duplicate {
    id: i64,
    account: String,
    amount: i64,
    memo: String,
}

/// What `dedupe` asks about each duplicate.
#[derive(Deserialize, Elicits)]
struct Confirm {
    /// Delete this duplicate?
    yes: bool,
}

/// What happened to the ledger, counted in the database.
#[derive(Serialize, schemars::JsonSchema)]
struct Stats {
    /// Entries left.
    entries: i64,
    /// `DELETE` statements executed by `dedupe` (one audit row each).
    deletes: i64,
    /// Transfers executed by `transfer` (one audit row each).
    transfers: i64,
    /// Every account's balance, by name.
    balances: std::collections::BTreeMap<String, i64>,
}

/// `transfer`'s arguments.
#[derive(Deserialize, schemars::JsonSchema)]
struct TransferRequest {
    /// The account to take the money from.
    from: String,
    /// The account to give it to.
    to: String,
    /// How much.
    amount: i64,
}

/// A transfer `before` found possible (sealed between rounds).
#[derive(Serialize, Deserialize)]
struct Pending {
    from: String,
    to: String,
    amount: i64,
}

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS entries (
        id INTEGER PRIMARY KEY, account TEXT NOT NULL, amount INTEGER NOT NULL, memo TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, entry INTEGER);
    CREATE TABLE IF NOT EXISTS accounts (name TEXT PRIMARY KEY, balance INTEGER NOT NULL);";

const SEED: &str = "
    DELETE FROM entries; DELETE FROM audit; DELETE FROM accounts;
    INSERT INTO accounts (name, balance) VALUES ('alice', 500), ('bob', 100), ('carol', 50);
    INSERT INTO entries (account, amount, memo) VALUES
        ('alice', 120, 'rent'), ('alice', 120, 'rent'),
        ('bob', 40, 'books'),
        ('carol', 75, 'train'), ('carol', 75, 'train');";

impl Ledger {
    /// Opens (or creates) the ledger at `path`, in memory when `None`, seeded if empty.
    fn open(path: Option<&str>) -> rusqlite::Result<Self> {
        let db = match path {
            Some(path) => Connection::open(path)?,
            None => Connection::open_in_memory()?,
        };
        db.execute_batch(SCHEMA)?;
        let empty: i64 = db.query_row("SELECT count(*) FROM entries", [], |r| r.get(0))?;
        if empty == 0 {
            db.execute_batch(SEED)?;
        }
        Ok(Ledger { db: Mutex::new(db) })
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.db
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Entries that repeat an earlier one, oldest duplicate first.
    fn duplicates(&self) -> Result<Vec<Duplicate>, String> {
        let db = self.db();
        let mut query = db
            .prepare(
                "SELECT e.id, e.account, e.amount, e.memo FROM entries e
                 WHERE EXISTS (SELECT 1 FROM entries f WHERE f.id < e.id
                     AND f.account = e.account AND f.amount = e.amount AND f.memo = e.memo)
                 ORDER BY e.id",
            )
            .map_err(|e| e.to_string())?;
        let rows = query
            .query_map([], |r| {
                Ok(Duplicate {
                    id: r.get(0)?,
                    account: r.get(1)?,
                    amount: r.get(2)?,
                    memo: r.get(3)?,
                })
            })
            .map_err(|e| e.to_string())?;
        rows.collect::<Result<_, _>>().map_err(|e| e.to_string())
    }

    /// Deletes entry `id` and writes its audit row, in one transaction: rows deleted.
    fn delete(&self, id: i64) -> Result<u64, String> {
        let mut db = self.db();
        let tx = db.transaction().map_err(|e| e.to_string())?;
        let n = tx
            .execute("DELETE FROM entries WHERE id = ?1", params![id])
            .map_err(|e| e.to_string())?;
        tx.execute(
            "INSERT INTO audit (kind, entry) VALUES ('delete', ?1)",
            params![id],
        )
        .map_err(|e| e.to_string())?;
        tx.commit().map_err(|e| e.to_string())?;
        Ok(n as u64)
    }

    fn stats(&self) -> rusqlite::Result<Stats> {
        let db = self.db();
        let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0));
        let mut query = db.prepare("SELECT name, balance FROM accounts")?;
        let balances = query
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(Stats {
            entries: count("SELECT count(*) FROM entries")?,
            deletes: count("SELECT count(*) FROM audit WHERE kind = 'delete'")?,
            transfers: count("SELECT count(*) FROM audit WHERE kind = 'transfer'")?,
            balances,
        })
    }

    /// `from`'s balance, if the account exists.
    fn balance(&self, account: &str) -> rusqlite::Result<Option<i64>> {
        let db = self.db();
        let mut query = db.prepare("SELECT balance FROM accounts WHERE name = ?1")?;
        let mut rows = query.query_map(params![account], |r| r.get(0))?;
        rows.next().transpose()
    }

    /// Moves `amount` from one account to the other and writes its audit row, in one
    /// transaction; refused (nothing written) if the balance no longer covers it.
    fn move_money(&self, t: &Pending) -> rusqlite::Result<bool> {
        let mut db = self.db();
        let tx = db.transaction()?;
        let taken = tx.execute(
            "UPDATE accounts SET balance = balance - ?2 WHERE name = ?1 AND balance >= ?2",
            params![t.from, t.amount],
        )?;
        if taken == 0 {
            return Ok(false);
        }
        tx.execute(
            "UPDATE accounts SET balance = balance + ?2 WHERE name = ?1",
            params![t.to, t.amount],
        )?;
        tx.execute("INSERT INTO audit (kind) VALUES ('transfer')", [])?;
        tx.commit()?;
        Ok(true)
    }
}

#[mcp_server]
impl Ledger {
    /// Deletes duplicate entries, asking before each.
    #[mcp_tool]
    async fn dedupe(&self, ctx: &Ctx) -> Result<String, ToolError> {
        // A read whose answer could change between rounds: once, so every replay of this
        // call asks about the same rows.
        let duplicates = ctx
            .once("duplicates", async { self.duplicates() })
            .await?
            .map_err(ToolError::new)?;
        let mut deleted = 0;
        for dup in duplicates {
            let question = format!(
                "Delete entry {}: {} {} for {}?",
                dup.id, dup.account, dup.amount, dup.memo
            );
            let answer = ctx.elicit_form::<Confirm>(question).await?;
            if answer.accepted().is_some_and(|c| c.yes) {
                // The write: once per call, whichever era replays this loop.
                deleted += ctx
                    .once("delete", async { self.delete(dup.id) })
                    .await?
                    .map_err(ToolError::new)?;
            }
        }
        Ok(format!("{deleted} duplicate(s) deleted"))
    }

    /// Moves money between two accounts once the user confirms.
    #[mcp_tool(client = confirm, after = execute)]
    async fn transfer(
        &self,
        request: TransferRequest,
        _ctx: &PhaseCtx,
    ) -> Result<Pending, ToolError> {
        if request.amount <= 0 || request.from == request.to {
            return Err(ToolError::new(
                "a transfer moves a positive amount between two accounts",
            ));
        }
        for account in [&request.from, &request.to] {
            if self.balance(account).map_err(ToolError::new)?.is_none() {
                return Err(ToolError::new(format!("no account {account:?}")));
            }
        }
        let balance = self.balance(&request.from).map_err(ToolError::new)?;
        if balance.unwrap_or(0) < request.amount {
            return Err(ToolError::new(format!(
                "{} cannot cover {}",
                request.from, request.amount
            )));
        }
        Ok(Pending {
            from: request.from,
            to: request.to,
            amount: request.amount,
        })
    }

    /// Asks the user; writes nothing (this phase is replayed on a 2026-07-28 client).
    async fn confirm(t: &Pending, ctx: &Ctx) -> Result<bool, ToolError> {
        let question = format!("Move {} from {} to {}?", t.amount, t.from, t.to);
        let answer = ctx.elicit_form::<Confirm>(question).await?;
        Ok(answer.accepted().is_some_and(|c| c.yes))
    }

    /// Moves the money, once per call.
    async fn execute(&self, t: Pending, yes: bool, _ctx: &PhaseCtx) -> Result<String, ToolError> {
        if !yes {
            return Ok("transfer cancelled".into());
        }
        if !self.move_money(&t).map_err(ToolError::new)? {
            return Err(ToolError::new(format!(
                "{} can no longer cover {}",
                t.from, t.amount
            )));
        }
        Ok(format!("moved {} from {} to {}", t.amount, t.from, t.to))
    }

    /// The entries left, the balances, and the deletes and transfers executed so far.
    #[mcp_tool]
    async fn ledger_stats(&self) -> Result<Json<Stats>, ToolError> {
        Ok(Json(self.stats().map_err(ToolError::new)?))
    }

    /// Puts the seed entries back and clears the audit log.
    #[mcp_tool]
    async fn ledger_reset(&self) -> Result<String, ToolError> {
        self.db().execute_batch(SEED).map_err(ToolError::new)?;
        Ok("reset".into())
    }
}

fn server(ledger: Ledger) -> Server {
    Server::new(tracksuit::crate_info!())
        .instructions("A ledger whose tools delete duplicates exactly once, in either era.")
        .tools(ledger)
}

/// Runs `dedupe` and a transfer in `era` against `url`, answering yes to every question.
async fn run_as(url: &str, era: Era) -> Result<(String, Value), Box<dyn std::error::Error>> {
    let client = Client::builder()
        .era(era)
        .on_elicitation(|p: ElicitRequestParams| async move {
            if let ElicitRequestParams::Form(form) = &p {
                println!("  server asks: {}  → yes", form.message);
            }
            serde_json::from_value(json!({"action": "accept", "content": {"yes": true}}))
                .map_err(ErrorObject::internal)
        })
        .connect(HttpTransport::new(url)?)
        .await?;
    client.call_tool("ledger_reset", json!({})).await?;
    let mut said = Vec::new();
    let calls = [
        ("dedupe", json!({})),
        (
            "transfer",
            json!({"from": "alice", "to": "bob", "amount": 120}),
        ),
    ];
    for (tool, arguments) in calls {
        let result = client.call_tool(tool, arguments).await?;
        let text = result.content.first().and_then(|c| c.as_text());
        said.push(text.unwrap_or_default().to_owned());
    }
    let stats = client.call_tool("ledger_stats", json!({})).await?;
    Ok((
        said.join("; "),
        Value::Object(stats.structured_content.unwrap_or_default()),
    ))
}

/// Serves the ledger on a loopback port and runs `dedupe` and a transfer once per era.
async fn demo(ledger: Ledger) -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = StreamableHttp::new(server(ledger).build()?, HttpOptions::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let app = endpoint.router("/mcp");
    tokio::spawn(async move { serve(listener, app).await });
    for (name, era) in [
        ("2025-11-25 session", Era::Session),
        ("2026-07-28 (MRTR)", Era::Stateless),
    ] {
        println!("{name}: dedupe, then transfer 120 from alice to bob");
        let (said, stats) = run_as(&url, era).await?;
        println!("  → {said}\n  ledger: {stats}\n");
        let expected = json!({"entries": 3, "deletes": 2, "transfers": 1,
            "balances": {"alice": 380, "bob": 220, "carol": 50}});
        if stats != expected {
            return Err(format!("{name}: expected {expected}, got {stats}").into());
        }
    }
    println!("each duplicate was deleted once and the money moved once, in both eras");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let ledger = Ledger::open(args.db.as_deref())?;
    if args.stdio {
        return Ok(server(ledger).serve_stdio().await?);
    }
    if let Some(port) = args.port {
        eprintln!("tracksuit ledger on http://127.0.0.1:{port}/mcp");
        return Ok(server(ledger)
            .serve_http_with(("127.0.0.1", port), HttpOptions::default())
            .await?);
    }
    demo(ledger).await
}

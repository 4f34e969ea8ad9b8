//! The exactly-once contract, counted in effects: `Ctx::once` blocks between questions run
//! once in both eras, a re-sent final round (verbatim, 20 at once) returns the first
//! outcome and runs nothing again, a consumed state with other answers is refused, and a
//! once block of another name at a logged place fails the call as not deterministic.

use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tracksuit::client::Client;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicits, PhaseCtx, Server, ServerOptions, ToolError, mcp_tool};
use tracksuit_tests::support::{connect, text};

#[path = "mrtr.rs"]
mod mrtr;
use mrtr::{asked, call, keys, send};

/// A yes or a no.
#[derive(serde::Deserialize, Elicits)]
struct Confirm {
    /// Yes?
    yes: bool,
}

static DELETED: AtomicUsize = AtomicUsize::new(0);
static DELETED_2025: AtomicUsize = AtomicUsize::new(0);
static MOVED: AtomicUsize = AtomicUsize::new(0);
static RENAME: AtomicBool = AtomicBool::new(false);
static DRAWN: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());

/// Deletes two rows, asking before each; each delete is a once block. `counter` picks
/// which counter counts (one per era, so the tests can run at once).
async fn delete_two(ctx: &Ctx, counter: &'static AtomicUsize) -> Result<String, ToolError> {
    let mut deleted = Vec::new();
    for row in ["a", "b"] {
        let confirm = ctx.elicit_form::<Confirm>(format!("delete {row}?")).await?;
        if confirm.accepted().is_some_and(|c| c.yes) {
            let n = ctx
                .once("delete", async { counter.fetch_add(1, Ordering::SeqCst) })
                .await?;
            deleted.push(format!("{row}#{n}"));
        }
    }
    Ok(deleted.join(","))
}

/// Deletes duplicates (2026 counter).
#[mcp_tool]
async fn dedupe(ctx: &Ctx) -> Result<String, ToolError> {
    delete_two(ctx, &DELETED).await
}

/// Deletes duplicates (2025 counter).
#[mcp_tool]
async fn dedupe_2025(ctx: &Ctx) -> Result<String, ToolError> {
    delete_two(ctx, &DELETED_2025).await
}

/// Draws a number and reads the clock, then asks: both must survive the replay.
#[mcp_tool]
async fn draw(ctx: &Ctx) -> Result<String, ToolError> {
    let n: u64 = ctx.random().await?;
    let at = ctx.now().await?;
    let nanos = at.duration_since(std::time::UNIX_EPOCH)?.as_nanos() as u64;
    DRAWN.lock().expect("lock").push((n, nanos));
    let confirm = ctx.elicit_form::<Confirm>("keep it?").await?;
    Ok(format!(
        "{n} {nanos} {}",
        confirm.accepted().is_some_and(|c| c.yes)
    ))
}

/// Runs a once block whose name changes when `RENAME` is set: not deterministic.
#[mcp_tool]
async fn renamed(ctx: &Ctx) -> Result<String, ToolError> {
    let name = if RENAME.load(Ordering::SeqCst) {
        "charge"
    } else {
        "refund"
    };
    ctx.once(name, async { 1 }).await?;
    ctx.elicit_form::<Confirm>("sure?").await?;
    Ok("done".into())
}

/// Logs a result larger than a once block may.
#[mcp_tool]
async fn hoard(ctx: &Ctx) -> Result<String, ToolError> {
    let rows = ctx.once("rows", async { "x".repeat(70 * 1024) }).await?;
    Ok(rows.len().to_string())
}

/// Runs `blocks` once blocks (each logging `1`), then asks: its state's size shows what a
/// once block costs.
#[mcp_tool]
async fn padded(ctx: &Ctx, blocks: u32) -> Result<String, ToolError> {
    for _ in 0..blocks {
        ctx.once("pad", async { 1u8 }).await?;
    }
    ctx.elicit_form::<Confirm>("done?").await?;
    Ok("padded".into())
}

/// Moves money after asking: `after` is the effect.
struct Transfer;

/// The amount.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Amount {
    /// Cents
    cents: u64,
}

/// Transfers money once the user confirms.
#[mcp_tool(name = "transfer")]
impl Transfer {
    async fn before(args: Amount, _ctx: &PhaseCtx) -> Result<u64, ToolError> {
        Ok(args.cents)
    }

    async fn client(cents: &u64, ctx: &Ctx) -> Result<bool, ToolError> {
        let confirm = ctx.elicit_form::<Confirm>(format!("move {cents}?")).await?;
        Ok(confirm.accepted().is_some_and(|c| c.yes))
    }

    async fn after(cents: u64, yes: bool, _ctx: &PhaseCtx) -> String {
        if !yes {
            return "kept".into();
        }
        let n = MOVED.fetch_add(1, Ordering::SeqCst);
        format!("moved {cents} (transfer #{n})")
    }
}

fn server() -> Server {
    Server::with_options(
        Implementation::new("exactly-once", "1"),
        ServerOptions::default().state_keys(keys(7)),
    )
    .tool(dedupe)
    .tool(dedupe_2025)
    .tool(draw)
    .tool(renamed)
    .tool(hoard)
    .tool(padded)
    .tool(Transfer)
}

fn app() -> axum::Router {
    let handle = server().build().expect("distinct names");
    StreamableHttp::new(handle, HttpOptions::default()).router("/mcp")
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"yes": true}})
}

/// Answers `yes` to every question of a call of `name` until it completes; the rounds'
/// responses.
async fn play(app: &axum::Router, name: &str, arguments: Value) -> Vec<Value> {
    let (_, mut v) = send(app, call(1, name, arguments.clone(), json!({}))).await;
    let mut rounds = vec![v.clone()];
    for id in 2..10 {
        if v["result"]["resultType"] != "input_required" {
            break;
        }
        let (key, _, state) = asked(&v);
        let retry = json!({"inputResponses": {key: yes()}, "requestState": state});
        v = send(app, call(id, name, arguments.clone(), retry)).await.1;
        rounds.push(v.clone());
    }
    rounds
}

#[tokio::test]
async fn a_once_block_between_questions_runs_once_on_a_2026_client() {
    let app = app();
    let start = DELETED.load(Ordering::SeqCst);
    let rounds = play(&app, "dedupe", json!({})).await;
    // Three rounds: ask a, (delete a) ask b, (delete b) done — and round 3 replays both
    // deletes from the log.
    assert_eq!(rounds.len(), 3, "{rounds:?}");
    let done = &rounds[2]["result"];
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(
        DELETED.load(Ordering::SeqCst) - start,
        2,
        "each delete ran once"
    );
    assert_eq!(
        done["content"][0]["text"],
        format!("a#{},b#{}", start, start + 1),
        "the replay got each delete's logged result"
    );
}

#[tokio::test]
async fn a_once_block_between_questions_runs_once_on_a_2025_session() {
    let client = Client::builder()
        .on_elicitation(|_| async { Ok(serde_json::from_value(yes()).expect("an elicit result")) });
    let client = connect(server(), client).await;
    let start = DELETED_2025.load(Ordering::SeqCst);
    let result = client
        .call_tool("dedupe_2025", json!({}))
        .await
        .expect("call");
    assert_eq!(DELETED_2025.load(Ordering::SeqCst) - start, 2);
    assert_eq!(text(&result), format!("a#{},b#{}", start, start + 1));
}

#[tokio::test]
async fn clocks_and_random_values_are_read_once_per_call() {
    let app = app();
    DRAWN.lock().expect("lock").clear();
    let rounds = play(&app, "draw", json!({})).await;
    let done = rounds.last().expect("rounds");
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    let drawn = DRAWN.lock().expect("lock").clone();
    assert_eq!(drawn.len(), 2, "the tool ran in two rounds: {drawn:?}");
    assert_eq!(
        drawn[0], drawn[1],
        "the replay saw the first round's values"
    );
    let (n, nanos) = drawn[0];
    assert_eq!(
        done["result"]["content"][0]["text"],
        format!("{n} {nanos} true")
    );
}

#[tokio::test]
async fn a_final_round_resent_twenty_times_at_once_runs_after_once() {
    let app = app();
    let args = json!({"cents": 250});
    let (_, first) = send(&app, call(1, "transfer", args.clone(), json!({}))).await;
    let (key, _, state) = asked(&first);
    let before = MOVED.load(Ordering::SeqCst);
    let last = json!({"inputResponses": {key.clone(): yes()}, "requestState": state.clone()});
    let sends = (0..20).map(|i| {
        let app = app.clone();
        let last = last.clone();
        let args = args.clone();
        tokio::spawn(async move { send(&app, call(100 + i, "transfer", args, last)).await })
    });
    let mut results = Vec::new();
    for send in sends {
        let (_, v) = send.await.expect("the request task");
        results.push(v["result"].clone());
    }
    assert_eq!(
        MOVED.load(Ordering::SeqCst) - before,
        1,
        "one transfer for 20 re-sends"
    );
    let expected = format!("moved 250 (transfer #{before})");
    for r in &results {
        assert_eq!(r["resultType"], "complete", "{r}");
        assert_eq!(
            r["content"][0]["text"], expected,
            "every re-send gets the same result"
        );
    }
    // Once more, later: still the recorded result.
    let (_, again) = send(&app, call(200, "transfer", args.clone(), last)).await;
    assert_eq!(again["result"]["content"][0]["text"], expected);
    assert_eq!(MOVED.load(Ordering::SeqCst) - before, 1);
    // The consumed state with another answer is refused, and nothing runs.
    let no = json!({"action": "decline"});
    let other = json!({"inputResponses": {key: no}, "requestState": state});
    let (_, refused) = send(&app, call(201, "transfer", args, other)).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("other inputResponses"), "{refused}");
    assert_eq!(MOVED.load(Ordering::SeqCst) - before, 1);
}

#[tokio::test]
async fn a_round_that_only_asked_stays_reusable_with_other_answers() {
    let app = app();
    let (_, first) = send(&app, call(1, "dedupe", json!({}), json!({}))).await;
    let (key, _, state) = asked(&first);
    let start = DELETED.load(Ordering::SeqCst);
    // "no" to a: round 2 asks b without running anything, so its state is given back...
    let no = json!({"action": "accept", "content": {"yes": false}});
    let r = json!({"inputResponses": {key.clone(): no}, "requestState": state.clone()});
    let (_, second) = send(&app, call(2, "dedupe", json!({}), r)).await;
    assert_eq!(asked(&second).1, "delete b?");
    // ...and the same state may be answered otherwise: now a is deleted.
    let r = json!({"inputResponses": {key: yes()}, "requestState": state});
    let (_, third) = send(&app, call(3, "dedupe", json!({}), r)).await;
    assert_eq!(asked(&third).1, "delete b?");
    assert!(DELETED.load(Ordering::SeqCst) > start);
}

#[tokio::test]
async fn a_once_block_of_another_name_at_a_logged_place_fails_the_call() {
    let app = app();
    let (_, first) = send(&app, call(1, "renamed", json!({}), json!({}))).await;
    let (key, _, state) = asked(&first);
    RENAME.store(true, Ordering::SeqCst);
    let retry = json!({"inputResponses": {key: yes()}, "requestState": state});
    let (_, failed) = send(&app, call(2, "renamed", json!({}), retry)).await;
    RENAME.store(false, Ordering::SeqCst);
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("tool `renamed`") && message.contains("once block `charge`"),
        "{failed}"
    );
}

#[tokio::test]
async fn a_result_too_large_to_log_is_a_clear_error_in_both_eras() {
    let app = app();
    let (_, v) = send(&app, call(1, "hoard", json!({}), json!({}))).await;
    assert_eq!(v["result"]["isError"], true, "{v}");
    let message = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("`rows`") && message.contains("65536"),
        "{v}"
    );
    let client = connect(server(), Client::builder()).await;
    let result = client.call_tool("hoard", json!({})).await.expect("call");
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("65536"), "{}", text(&result));
}

#[tokio::test]
async fn a_once_block_adds_its_result_and_a_few_dozen_bytes_to_the_state() {
    let app = app();
    let mut sizes = Vec::new();
    for blocks in [0, 10, 100] {
        let (_, v) = send(
            &app,
            call(1, "padded", json!({"blocks": blocks}), json!({})),
        )
        .await;
        let (_, _, state) = asked(&v);
        sizes.push(state.len());
    }
    let per_block = |from: usize, to: usize, n: usize| (sizes[to] - sizes[from]) as f64 / n as f64;
    let (ten, hundred) = (per_block(0, 1, 10), per_block(0, 2, 100));
    eprintln!(
        "requestState: {sizes:?} bytes for 0/10/100 once blocks logging `1`: {ten:.1} / {hundred:.1} bytes each"
    );
    // `"once-N":{"d":"…","r":1}` sealed and base64url-encoded: a few dozen bytes, linear.
    assert!(
        (20.0..=80.0).contains(&hundred),
        "{hundred} bytes per once block"
    );
    assert!(
        (ten - hundred).abs() < 8.0,
        "{ten} vs {hundred}: not linear"
    );
}

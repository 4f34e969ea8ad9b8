//! Idempotent rounds across replicas on a real PostgreSQL (`PgIdempotencyStore`): a final
//! round re-sent 20 times at once, split between two replicas, runs a handoff tool's
//! `after` once and every re-send gets the same result; a consumed state with other
//! answers is refused on either replica. Run by `scripts/postgres.sh`.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::idempotency::PgIdempotencyStore;
use tracksuit::protocol::Implementation;
use tracksuit::{Ctx, Elicits, PhaseCtx, Server, ServerOptions, ToolError, mcp_tool};

#[path = "mrtr.rs"]
mod mrtr;
#[path = "pg.rs"]
mod pg;
use mrtr::{asked, call, keys, send};

static MOVED: AtomicUsize = AtomicUsize::new(0);

/// A yes or a no.
#[derive(serde::Deserialize, Elicits)]
struct Confirm {
    /// Yes?
    yes: bool,
}

/// The amount.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Amount {
    /// Cents
    cents: u64,
}

/// Moves money after asking: `after` is the effect.
struct Transfer;

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

/// A replica: the shared state keys, its own connection to the shared round records.
async fn replica(url: &str) -> axum::Router {
    let store = PgIdempotencyStore::connect(url).await.expect("connect");
    let server = Server::with_options(
        Implementation::new("rounds", "1"),
        ServerOptions::default().state_keys(keys(9)),
    )
    .idempotency_store(Arc::new(store))
    .tool(Transfer)
    .build()
    .expect("builds");
    StreamableHttp::new(server, HttpOptions::default()).router("/mcp")
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"yes": true}})
}

#[tokio::test]
async fn a_final_round_resent_to_two_replicas_runs_after_once() {
    let (_, url) = pg::schema().await;
    let replicas = [replica(&url).await, replica(&url).await];
    let args = json!({"cents": 75});
    let (_, first) = send(&replicas[0], call(1, "transfer", args.clone(), json!({}))).await;
    let (key, _, state) = asked(&first);
    let before = MOVED.load(Ordering::SeqCst);
    let last = json!({"inputResponses": {key.clone(): yes()}, "requestState": state.clone()});
    let sends: Vec<_> = (0..20)
        .map(|i| {
            let app = replicas[i % 2].clone();
            let (last, args) = (last.clone(), args.clone());
            tokio::spawn(
                async move { send(&app, call(10 + i as i64, "transfer", args, last)).await },
            )
        })
        .collect();
    let expected = format!("moved 75 (transfer #{before})");
    for sent in sends {
        let (_, v) = sent.await.expect("the request task");
        assert_eq!(v["result"]["content"][0]["text"], expected, "{v}");
    }
    assert_eq!(
        MOVED.load(Ordering::SeqCst) - before,
        1,
        "one transfer for 20 re-sends"
    );
    for (i, app) in replicas.iter().enumerate() {
        let (_, again) = send(
            app,
            call(40 + i as i64, "transfer", args.clone(), last.clone()),
        )
        .await;
        assert_eq!(again["result"]["content"][0]["text"], expected, "{again}");
        let other =
            json!({"inputResponses": {key.clone(): {"action": "decline"}}, "requestState": state});
        let (_, refused) = send(app, call(50 + i as i64, "transfer", args.clone(), other)).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }
    assert_eq!(MOVED.load(Ordering::SeqCst) - before, 1);
}

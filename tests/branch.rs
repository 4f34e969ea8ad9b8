//! Branches: concurrency, cancellation (call cancelled, sibling failed, timeout), depth,
//! token budget, history and system-prompt inheritance — against a scripted model.

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracksuit::branch::{BranchError, BranchOptions};
use tracksuit::client::{Client, ClientBuilder};
use tracksuit::host::connect_in_memory;
use tracksuit::protocol::*;
use tracksuit::sampling::SampleError;
use tracksuit::{Ctx, Server, ToolError, mcp_tool};

/// A model that waits until `gate` requests are pending (or forever when `gate` is 0),
/// then answers; it records every request.
#[derive(Clone)]
struct Model {
    requests: Arc<Mutex<Vec<CreateMessageRequestParams>>>,
    barrier: Option<Arc<tokio::sync::Barrier>>,
    /// `usage.inputTokens` and `usage.outputTokens` to report.
    usage: Option<(u64, u64)>,
}

impl Model {
    fn new(gate: usize) -> Self {
        Model {
            requests: Arc::default(),
            barrier: (gate > 0).then(|| Arc::new(tokio::sync::Barrier::new(gate))),
            usage: None,
        }
    }

    fn client(&self) -> ClientBuilder {
        let me = self.clone();
        Client::builder().on_sampling(move |p| {
            let me = me.clone();
            async move {
                me.requests.lock().expect("lock").push(p);
                match &me.barrier {
                    Some(b) => {
                        b.wait().await;
                    }
                    None => std::future::pending::<()>().await,
                }
                let mut reply =
                    json!({"role":"assistant","model":"m","content":{"type":"text","text":"ok"}});
                if let Some((input, output)) = me.usage {
                    reply["usage"] = json!({"inputTokens": input, "outputTokens": output});
                }
                serde_json::from_value(reply).map_err(ErrorObject::internal)
            }
        })
    }

    fn count(&self) -> usize {
        self.requests.lock().expect("lock").len()
    }
}

/// Two branches sample at the same time.
#[mcp_tool]
async fn both(ctx: &Ctx) -> Result<String, ToolError> {
    let (a, b) = tokio::try_join!(
        ctx.branch(|b| async move { b.sample().prompt("for").await }),
        ctx.branch(|b| async move { b.sample().prompt("against").await }),
    )?;
    Ok(format!("{}+{}", a?.text(), b?.text()))
}

/// One branch fails at once while the other is still sampling.
#[mcp_tool]
async fn sibling_fails(ctx: &Ctx) -> Result<String, ToolError> {
    let slow = ctx.branch(|b| async move { b.sample().prompt("slow").await.map(|e| e.text()) });
    let failing = ctx.branch(|_| async move {
        tokio::task::yield_now().await;
        Err::<String, SampleError>(SampleError::Usage("boom".into()))
    });
    let joined: Result<(String, String), SampleError> = tokio::try_join!(
        async { slow.await.map_err(|e| SampleError::Usage(e.to_string()))? },
        async {
            failing
                .await
                .map_err(|e| SampleError::Usage(e.to_string()))?
        },
    );
    Ok(format!("{:?}", joined.err().map(|e| e.to_string())))
}

/// A branch with a timeout.
#[mcp_tool]
async fn slow_branch(ctx: &Ctx) -> Result<String, ToolError> {
    let r = ctx
        .branch_with(
            BranchOptions::new().timeout(Duration::from_millis(200)),
            |b| async move { b.sample().prompt("slow").await },
        )
        .await;
    Ok(match r {
        Err(BranchError::Timeout(d)) => format!("timeout {}ms", d.as_millis()),
        other => format!("{:?}", other.map(|r| r.map(|e| e.text()))),
    })
}

/// Nesting limits.
#[mcp_tool]
async fn deep(ctx: &Ctx) -> Result<String, ToolError> {
    let r = ctx
        .branch_with(BranchOptions::new().max_depth(2), |b| async move {
            b.branch_with(BranchOptions::new().max_depth(10), |c| async move {
                // depth 2 of at most 2 (a child cannot loosen its parent's limit): one more fails
                c.branch(|_| async move { "too deep" }).await
            })
            .await
        })
        .await;
    Ok(format!("{r:?}"))
}

/// Budgets are checked before sending and charged from reported usage.
#[mcp_tool]
async fn budget(ctx: &Ctx) -> Result<String, ToolError> {
    let tight = ctx
        .branch_with(BranchOptions::new().token_budget(50), |b| async move {
            b.sample()
                .prompt("hi")
                .max_tokens(100)
                .await
                .map(|e| e.text())
        })
        .await?;
    let charged = ctx
        .branch_with(BranchOptions::new().token_budget(1000), |b| async move {
            let first = b
                .sample()
                .prompt("hi")
                .max_tokens(100)
                .await
                .map(|e| e.text());
            let left = b.remaining_tokens();
            let second = b
                .sample()
                .prompt("again")
                .max_tokens(500)
                .await
                .map(|e| e.text());
            (first, left, second)
        })
        .await?;
    Ok(format!("{tight:?}|{charged:?}"))
}

/// History and system prompts inherit or are replaced.
#[mcp_tool]
async fn inherit(ctx: &Ctx) -> Result<String, ToolError> {
    let opts = BranchOptions::new()
        .history(vec![SamplingMessage::user_text("earlier")])
        .system(Some("Be brief.".into()));
    ctx.branch_with(opts, |b| async move {
        let _ = b
            .branch(|c| async move { c.sample().prompt("child inherits").await })
            .await;
        let _ = b
            .branch_with(
                BranchOptions::new().history(vec![]).system(None),
                |c| async move { c.sample().prompt("child replaces").await },
            )
            .await;
    })
    .await?;
    Ok("done".into())
}

fn server() -> Server {
    Server::new(tracksuit::crate_info!())
        .tool(both)
        .tool(sibling_fails)
        .tool(slow_branch)
        .tool(deep)
        .tool(budget)
        .tool(inherit)
}

fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(ContentBlock::as_text).collect()
}

async fn cancelled_ids(
    notes: &mut tokio::sync::broadcast::Receiver<JsonRpcNotification>,
    n: usize,
) -> Vec<Value> {
    let mut ids = Vec::new();
    while ids.len() < n {
        let note = tokio::time::timeout(Duration::from_secs(5), notes.recv())
            .await
            .expect("in time")
            .expect("open");
        if note.method == "notifications/cancelled" {
            ids.push(note.params.expect("params")["requestId"].clone());
        }
    }
    ids
}

#[tokio::test]
async fn branches_run_concurrently() {
    // The model answers only once two requests are pending: sequential branches would hang.
    let model = Model::new(2);
    let c = connect_in_memory(server(), model.client())
        .await
        .expect("connects");
    let r = tokio::time::timeout(Duration::from_secs(5), c.call_tool("both", json!({})))
        .await
        .expect("concurrent")
        .expect("call");
    assert_eq!(text(&r), "ok+ok");
}

#[tokio::test]
async fn a_failing_sibling_cancels_the_others() {
    let model = Model::new(0);
    let c = connect_in_memory(server(), model.client())
        .await
        .expect("connects");
    let mut notes = c.notifications();
    let r = c.call_tool("sibling_fails", json!({})).await.expect("call");
    assert!(text(&r).contains("boom"), "{}", text(&r));
    let ids = cancelled_ids(&mut notes, 1).await;
    assert_eq!(
        ids.len(),
        1,
        "the slow branch's sampling request was withdrawn"
    );
    assert_eq!(model.count(), 1, "and nothing more was sent");
}

#[tokio::test]
async fn cancelling_the_call_cancels_every_branch() {
    let model = Model::new(0);
    let server = server();
    let c = connect_in_memory(server.clone(), model.client())
        .await
        .expect("connects");
    let mut notes = c.notifications();
    {
        let call = c.call_tool("both", json!({}));
        tokio::pin!(call);
        // Let both branches send their requests, then drop the call (the client sends
        // notifications/cancelled for it).
        for _ in 0..100 {
            if model.count() == 2 {
                break;
            }
            let _ = tokio::time::timeout(Duration::from_millis(10), &mut call).await;
        }
        assert_eq!(model.count(), 2);
    }
    let ids = cancelled_ids(&mut notes, 2).await;
    assert_eq!(ids.len(), 2, "both branches' requests were withdrawn");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(model.count(), 2, "no request after the cancel");
    assert_eq!(server.in_flight_requests(), 0, "the call's task is gone");
}

#[tokio::test]
async fn timeouts_drop_the_branch() {
    let model = Model::new(0);
    let c = connect_in_memory(server(), model.client())
        .await
        .expect("connects");
    let mut notes = c.notifications();
    let r = c.call_tool("slow_branch", json!({})).await.expect("call");
    assert_eq!(text(&r), "timeout 200ms");
    assert_eq!(cancelled_ids(&mut notes, 1).await.len(), 1);
}

#[tokio::test]
async fn depth_limits_only_tighten() {
    let c = connect_in_memory(server(), Model::new(1).client())
        .await
        .expect("connects");
    let r = c.call_tool("deep", json!({})).await.expect("call");
    assert_eq!(text(&r), "Ok(Ok(Err(TooDeep { depth: 3, max: 2 })))");
}

#[tokio::test]
async fn budgets_are_checked_before_sending_and_charged_from_usage() {
    let mut model = Model::new(1);
    model.usage = Some((600, 0));
    let c = connect_in_memory(server(), model.client())
        .await
        .expect("connects");
    let r = text(&c.call_tool("budget", json!({})).await.expect("call"));
    assert!(r.starts_with("Err(BudgetExceeded { remaining: 50,"), "{r}");
    assert!(
        r.contains("|(Ok(\"ok\"), Some(400), Err(BudgetExceeded { remaining: 400,"),
        "{r}"
    );
    assert_eq!(model.count(), 1, "only the request that fit was sent");
}

/// The client's usage figures can be any u64: a sum past `u64::MAX` spends the whole budget
/// (it used to overflow: a panic in debug builds, a wrapped, tiny charge in release).
#[tokio::test]
async fn reported_usage_past_u64_max_spends_the_whole_budget() {
    let mut model = Model::new(1);
    model.usage = Some((u64::MAX, 1));
    let c = connect_in_memory(server(), model.client())
        .await
        .expect("connects");
    let r = text(&c.call_tool("budget", json!({})).await.expect("call"));
    assert!(
        r.contains("|(Ok(\"ok\"), Some(0), Err(BudgetExceeded { remaining: 0,"),
        "{r}"
    );
    assert_eq!(model.count(), 1, "nothing is left for the second request");
}

#[tokio::test]
async fn history_and_system_prompt_inherit_or_are_replaced() {
    let model = Model::new(1);
    let c = connect_in_memory(server(), model.client())
        .await
        .expect("connects");
    c.call_tool("inherit", json!({})).await.expect("call");
    let reqs: Vec<Value> = model
        .requests
        .lock()
        .expect("lock")
        .iter()
        .map(|r| serde_json::to_value(r).expect("json"))
        .collect();
    assert_eq!(reqs[0]["messages"][0]["content"]["text"], "earlier");
    assert_eq!(reqs[0]["messages"][1]["content"]["text"], "child inherits");
    assert_eq!(reqs[0]["systemPrompt"], "Be brief.");
    assert_eq!(reqs[1]["messages"].as_array().map(Vec::len), Some(1));
    assert_eq!(reqs[1]["messages"][0]["content"]["text"], "child replaces");
    assert!(reqs[1].get("systemPrompt").is_none());
}

#[tokio::test]
async fn a_disconnecting_client_cancels_every_branch() {
    use tracksuit::transport::memory;
    use tracksuit::transport::{MessageSink, MessageStream, Transport};
    let server = server();
    let (server_end, client_end) = memory::pair();
    let serving = tokio::spawn(server.clone().serve(server_end));
    let (mut stream, mut sink) = client_end.split();
    let send = |v: Value| serde_json::from_value::<JsonRpcMessage>(v).expect("message");
    sink.send(send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}))).await.expect("send");
    sink.send(send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"both","arguments":{}}}))).await.expect("send");
    // Wait for both branches' sampling requests, answer neither, then vanish.
    let mut sampling = 0;
    while sampling < 2 {
        let msg = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("in time")
            .expect("open")
            .expect("valid");
        if matches!(&msg, JsonRpcMessage::Request(r) if r.method == "sampling/createMessage") {
            sampling += 1;
        }
    }
    assert_eq!(server.in_flight_requests(), 1);
    drop((stream, sink));
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("the session ends")
        .expect("join")
        .expect("io");
    assert_eq!(
        server.in_flight_requests(),
        0,
        "the call and its branches were dropped"
    );
    assert_eq!(server.session_count(), 0);
}

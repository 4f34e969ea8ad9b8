//! Branches: concurrency, cancellation (call cancelled, sibling failed, timeout), depth,
//! token budget, history and system-prompt inheritance — against a scripted model.

use serde_json::{Value, json};
use std::time::Duration;
use tracksuit::branch::{BranchError, BranchOptions};
use tracksuit::protocol::*;
use tracksuit::sampling::SampleError;
use tracksuit::{Ctx, Server, ServerHandle, ToolError, mcp_tool};
use tracksuit_tests::support::{Model, both, cancelled_ids, connect, text, wait_until, within};

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

fn server() -> ServerHandle {
    Server::new(tracksuit::crate_info!())
        .tool(both)
        .tool(sibling_fails)
        .tool(slow_branch)
        .tool(deep)
        .tool(budget)
        .tool(inherit)
        .build()
        .expect("the test server's names are distinct")
}

#[tokio::test]
async fn branches_run_concurrently() {
    // The model answers only once two requests are pending: sequential branches would hang.
    let model = Model::together(2);
    let c = connect(server(), model.client()).await;
    let r = within(
        "the branches run concurrently",
        c.call_tool("both", json!({})),
    )
    .await
    .expect("call");
    assert_eq!(text(&r), "ok+ok");
}

#[tokio::test]
async fn a_failing_sibling_cancels_the_others() {
    let model = Model::silent();
    let c = connect(server(), model.client()).await;
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
    let model = Model::silent();
    let server = server();
    let c = connect(server.clone(), model.client()).await;
    let mut notes = c.notifications();
    {
        let call = c.call_tool("both", json!({}));
        tokio::pin!(call);
        // Let both branches send their requests, then drop the call (the client sends
        // notifications/cancelled for it).
        tokio::select! {
            r = &mut call => panic!("the call ended before it was cancelled: {r:?}"),
            _ = wait_until(|| model.count() == 2, "both branches are sampling") => {}
        }
    }
    let ids = cancelled_ids(&mut notes, 2).await;
    assert_eq!(ids.len(), 2, "both branches' requests were withdrawn");
    wait_until(
        || server.in_flight_requests() == 0,
        "the call is no longer in flight",
    )
    .await;
    // Anything the server sent before answering this ping has reached the client by now.
    c.ping().await.expect("ping");
    assert_eq!(model.count(), 2, "no request after the cancel");
}

#[tokio::test]
async fn timeouts_drop_the_branch() {
    let model = Model::silent();
    let c = connect(server(), model.client()).await;
    let mut notes = c.notifications();
    let r = c.call_tool("slow_branch", json!({})).await.expect("call");
    assert_eq!(text(&r), "timeout 200ms");
    assert_eq!(cancelled_ids(&mut notes, 1).await.len(), 1);
}

#[tokio::test]
async fn depth_limits_only_tighten() {
    let c = connect(server(), Model::answering().client()).await;
    let r = c.call_tool("deep", json!({})).await.expect("call");
    assert_eq!(text(&r), "Ok(Ok(Err(TooDeep { depth: 3, max: 2 })))");
}

#[tokio::test]
async fn budgets_are_checked_before_sending_and_charged_from_usage() {
    let model = Model::answering().usage(600, 0);
    let c = connect(server(), model.client()).await;
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
    let model = Model::answering().usage(u64::MAX, 1);
    let c = connect(server(), model.client()).await;
    let r = text(&c.call_tool("budget", json!({})).await.expect("call"));
    assert!(
        r.contains("|(Ok(\"ok\"), Some(0), Err(BudgetExceeded { remaining: 0,"),
        "{r}"
    );
    assert_eq!(model.count(), 1, "nothing is left for the second request");
}

#[tokio::test]
async fn history_and_system_prompt_inherit_or_are_replaced() {
    let model = Model::answering();
    let c = connect(server(), model.client()).await;
    c.call_tool("inherit", json!({})).await.expect("call");
    let reqs: Vec<Value> = model
        .requests()
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
        let msg = within("the branches' sampling requests arrive", stream.next())
            .await
            .expect("open")
            .expect("valid");
        if matches!(&msg, JsonRpcMessage::Request(r) if r.method == "sampling/createMessage") {
            sampling += 1;
        }
    }
    assert_eq!(server.in_flight_requests(), 1);
    drop((stream, sink));
    within("the session ends", serving)
        .await
        .expect("join")
        .expect("io");
    assert_eq!(
        server.in_flight_requests(),
        0,
        "the call and its branches were dropped"
    );
    assert_eq!(server.session_count(), 0);
}

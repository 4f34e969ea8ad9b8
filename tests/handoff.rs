//! Handoff tools: the three phases run in order, a failing phase is named, and the call's
//! sampling / elicitation answers are logged for replay.

use serde_json::json;
use tracksuit::client::Client;
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicited, Elicits, Json, PhaseCtx, Server, ToolError, mcp_tool};
use tracksuit_tests::support::connect;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    /// Fail in this phase (`before`, `client`), or not at all.
    fail: Option<String>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    fail: Option<String>,
    seed: u32,
}

#[derive(serde::Deserialize, serde::Serialize, Elicits)]
struct Answer {
    ok: bool,
}

#[derive(Elicits)]
enum Keys {
    /// Confirm?
    #[elicit(response = Answer)]
    Confirm { seed: u32 },
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Report {
    seed: u32,
    said: String,
    confirmed: bool,
    logged: Vec<String>,
}

/// A three-phase tool.
struct Flow;

/// Runs three phases.
#[mcp_tool(elicits = Keys, name = "flow")]
impl Flow {
    async fn before(start: Start, ctx: &PhaseCtx) -> Result<State, ToolError> {
        ctx.log(LoggingLevel::Info, "before").await;
        if start.fail.as_deref() == Some("before") {
            return Err(ToolError::new("no seed today"));
        }
        Ok(State {
            fail: start.fail,
            seed: 7,
        })
    }

    async fn client(state: &State, ctx: &Ctx<Keys>) -> Result<(String, bool), ToolError> {
        if state.fail.as_deref() == Some("client") {
            return Err(ToolError::new("the client phase gave up"));
        }
        let said = ctx
            .sample()
            .prompt(format!("seed {}", state.seed))
            .await?
            .text();
        let confirmed = matches!(
            ctx.elicit(Keys::confirm(state.seed)).await?,
            Elicited::Accept {
                value: Answer { ok: true },
                ..
            }
        );
        Ok((said, confirmed))
    }

    async fn after(state: State, out: (String, bool), ctx: &PhaseCtx) -> Json<Report> {
        let logged = ctx.exchange_log().into_iter().map(|e| e.method).collect();
        Json(Report {
            seed: state.seed,
            said: out.0,
            confirmed: out.1,
            logged,
        })
    }
}

async fn client() -> Client {
    let server = Server::new(tracksuit::crate_info!()).tool(Flow);
    let builder = Client::builder()
        .on_sampling(|_| async {
            serde_json::from_value(
                json!({"role":"assistant","model":"m","content":{"type":"text","text":"hello"}}),
            )
            .map_err(ErrorObject::internal)
        })
        .on_elicitation(|_| async {
            serde_json::from_value(json!({"action":"accept","content":{"ok":true}}))
                .map_err(ErrorObject::internal)
        });
    connect(server, builder).await
}

#[tokio::test]
async fn phases_run_in_order_and_answers_are_logged() {
    let c = client().await;
    let tools = c.list_tools(None).await.expect("list").tools;
    assert_eq!(tools[0].name, "flow");
    assert_eq!(tools[0].description.as_deref(), Some("Runs three phases."));
    assert_eq!(
        tools[0].input_schema["properties"]["fail"]["description"],
        "Fail in this phase (`before`, `client`), or not at all."
    );
    assert!(tools[0].output_schema.is_some());
    let r = c.call_tool("flow", json!({})).await.expect("call");
    assert_eq!(
        serde_json::to_value(r.structured_content).expect("json"),
        json!({"seed": 7, "said": "hello", "confirmed": true, "logged": ["sampling/createMessage", "elicitation/create"]})
    );
}

#[tokio::test]
async fn a_failing_phase_is_named() {
    let c = client().await;
    for (phase, text) in [
        ("before", "before phase failed: no seed today"),
        ("client", "client phase failed: the client phase gave up"),
    ] {
        let r = c
            .call_tool("flow", json!({"fail": phase}))
            .await
            .expect("call");
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.content[0].as_text(), Some(text));
    }
}

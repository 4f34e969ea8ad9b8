//! Handoff tools: the three phases run in order, a failing phase is named, and the call's
//! sampling / elicitation answers are logged for replay. Shared state: a handoff tool in an
//! `#[mcp_server]` block whose phases use `&self`, run on a 2025 session and as 2026-07-28
//! rounds (its `before` and `after` once each); a standalone one with `&self` and
//! `PhaseCtx::state`.

use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tracksuit::client::Client;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{
    Ctx, Elicited, Elicits, Json, PhaseCtx, Server, ServerOptions, ToolError, mcp_server, mcp_tool,
};
use tracksuit_tests::support::{connect, text};

#[path = "mrtr.rs"]
mod mrtr;
use mrtr::{asked, call, keys, send};

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

/// A yes or a no.
#[derive(serde::Deserialize, Elicits)]
struct Confirm {
    /// Yes?
    yes: bool,
}

/// The titles to look through.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Titles {
    /// Book titles, duplicates included.
    titles: Vec<String>,
}

/// What `before` planned: the duplicates, and which run of `before` it was.
#[derive(serde::Serialize, serde::Deserialize)]
struct Plan {
    duplicates: Vec<String>,
    run: usize,
}

/// Some text, kept between phases.
#[derive(serde::Serialize, serde::Deserialize)]
struct Text(String);

/// A library whose handoff tool deletes the duplicates the user confirms: its phases count
/// on the server's own fields.
#[derive(Default)]
struct Library {
    /// How often `before` ran.
    planned: AtomicUsize,
    /// What `after` deleted, in order.
    deleted: Mutex<Vec<String>>,
}

impl Library {
    fn deleted(&self) -> Vec<String> {
        self.deleted.lock().expect("lock").clone()
    }
}

#[mcp_server]
impl Library {
    /// Deletes the duplicate titles the user confirms.
    #[mcp_tool(client = confirm_each, after = Self::delete_confirmed)]
    async fn dedupe(&self, args: Titles, _ctx: &PhaseCtx) -> Result<Plan, ToolError> {
        let run = self.planned.fetch_add(1, Ordering::SeqCst);
        let mut seen = std::collections::HashSet::new();
        let duplicates = args
            .titles
            .into_iter()
            .filter(|t| !seen.insert(t.clone()))
            .collect();
        Ok(Plan { duplicates, run })
    }

    async fn confirm_each(&self, plan: &Plan, ctx: &Ctx) -> Result<Vec<String>, ToolError> {
        let mut chosen = Vec::new();
        for title in &plan.duplicates {
            let confirm = ctx
                .elicit_form::<Confirm>(format!("delete {title}?"))
                .await?;
            if confirm.accepted().is_some_and(|c| c.yes) {
                chosen.push(title.clone());
            }
        }
        Ok(chosen)
    }

    async fn delete_confirmed(&self, plan: Plan, chosen: Vec<String>, _ctx: &PhaseCtx) -> String {
        self.deleted
            .lock()
            .expect("lock")
            .extend(chosen.iter().cloned());
        format!("run {}: deleted {}", plan.run, chosen.join(","))
    }

    /// Counts a title's words; only `before` and `after` take `&self`.
    #[mcp_tool(name = "words", client = Self::count, after = report)]
    async fn words_before(&self, args: Titles, _ctx: &PhaseCtx) -> Result<Text, ToolError> {
        Ok(Text(args.titles.join(" ")))
    }

    async fn count(text: &Text, _ctx: &Ctx) -> Result<usize, ToolError> {
        Ok(text.0.split_whitespace().count())
    }

    async fn report(&self, _text: Text, n: usize, _ctx: &PhaseCtx) -> String {
        format!("{n} words, {} deleted so far", self.deleted().len())
    }
}

fn library_server(library: &Arc<Library>) -> Server {
    Server::with_options(
        Implementation::new("library", "1"),
        ServerOptions::default().state_keys(keys(5)),
    )
    .tools(library.clone())
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"yes": true}})
}

fn titles() -> Value {
    json!({"titles": ["Dune", "Emma", "Dune", "Ulysses", "Emma"]})
}

#[tokio::test]
async fn a_server_handoff_tool_uses_self_on_a_2025_session() {
    let library = Arc::new(Library::default());
    let client = Client::builder()
        .on_elicitation(|_| async { Ok(serde_json::from_value(yes()).expect("an elicit result")) });
    let client = connect(library_server(&library), client).await;
    let tools = client.list_tools(None).await.expect("list").tools;
    let dedupe = tools.iter().find(|t| t.name == "dedupe").expect("dedupe");
    assert_eq!(
        dedupe.description.as_deref(),
        Some("Deletes the duplicate titles the user confirms.")
    );
    assert!(dedupe.input_schema["properties"]["titles"].is_object());
    let result = client.call_tool("dedupe", titles()).await.expect("call");
    assert_eq!(text(&result), "run 0: deleted Dune,Emma");
    assert_eq!(library.planned.load(Ordering::SeqCst), 1);
    assert_eq!(library.deleted(), ["Dune", "Emma"]);
    let words = client
        .call_tool("words", json!({"titles": ["War and Peace"]}))
        .await
        .expect("call");
    assert_eq!(text(&words), "3 words, 2 deleted so far");
}

#[tokio::test]
async fn a_server_handoff_tool_uses_self_once_per_call_on_a_2026_client() {
    let library = Arc::new(Library::default());
    let handle = library_server(&library).build().expect("distinct names");
    let app = StreamableHttp::new(handle, HttpOptions::default()).router("/mcp");
    let (_, mut v) = send(&app, call(1, "dedupe", titles(), json!({}))).await;
    let mut last = json!({});
    let mut rounds = 1;
    while v["result"]["resultType"] == "input_required" {
        let (key, message, state) = asked(&v);
        assert!(message.starts_with("delete "), "{message}");
        last = json!({"inputResponses": {key: yes()}, "requestState": state});
        rounds += 1;
        v = send(&app, call(rounds, "dedupe", titles(), last.clone()))
            .await
            .1;
    }
    assert_eq!(rounds, 3, "one round per duplicate, then the result: {v}");
    assert_eq!(
        v["result"]["content"][0]["text"], "run 0: deleted Dune,Emma",
        "{v}"
    );
    assert_eq!(
        library.planned.load(Ordering::SeqCst),
        1,
        "`before` ran in the first round only"
    );
    assert_eq!(library.deleted(), ["Dune", "Emma"], "`after` ran once");
    // The final round re-sent: the same result, `after` not run again.
    let (_, again) = send(&app, call(9, "dedupe", titles(), last)).await;
    assert_eq!(
        again["result"]["content"][0]["text"],
        "run 0: deleted Dune,Emma"
    );
    assert_eq!(library.deleted(), ["Dune", "Emma"]);
    let (_, words) = send(
        &app,
        call(10, "words", json!({"titles": ["a b"]}), json!({})),
    )
    .await;
    assert_eq!(
        words["result"]["content"][0]["text"],
        "2 words, 2 deleted so far"
    );
}

/// A stamp whose prefix is the tool's own field; the journal is app state.
struct Stamp {
    prefix: String,
}

/// Where stamped words go.
#[derive(Default)]
struct Journal(Mutex<Vec<String>>);

/// Stamps a word.
#[mcp_tool(name = "stamp")]
impl Stamp {
    async fn before(&self, args: Titles, _ctx: &PhaseCtx) -> Result<Text, ToolError> {
        Ok(Text(format!("{}{}", self.prefix, args.titles.join(""))))
    }

    async fn client(&self, word: &Text, _ctx: &Ctx) -> Result<usize, ToolError> {
        Ok(word.0.len() + self.prefix.len())
    }

    async fn after(word: Text, n: usize, ctx: &PhaseCtx) -> Result<String, ToolError> {
        let journal = ctx.state::<Journal>()?;
        journal.0.lock().expect("lock").push(word.0.clone());
        Ok(format!("{} {n}", word.0))
    }
}

#[tokio::test]
async fn a_standalone_handoff_tool_uses_self_and_app_state() {
    let server = Server::new(tracksuit::crate_info!())
        .state(Journal::default())
        .tool(Stamp { prefix: "#".into() })
        .build()
        .expect("one tool");
    let client = connect(server.clone(), Client::builder()).await;
    let result = client
        .call_tool("stamp", json!({"titles": ["ok"]}))
        .await
        .expect("call");
    assert_eq!(text(&result), "#ok 4");
    let journal = server.state::<Journal>().expect("a journal");
    assert_eq!(*journal.0.lock().expect("lock"), ["#ok"]);
    // Without the journal, `after` fails, naming the type.
    let bare = Server::new(tracksuit::crate_info!()).tool(Stamp { prefix: "#".into() });
    let client = connect(bare, Client::builder()).await;
    let result = client
        .call_tool("stamp", json!({"titles": ["ok"]}))
        .await
        .expect("call");
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result),
        "no app state of type `handoff::Journal` on this server: give one to `Server::state`"
    );
}

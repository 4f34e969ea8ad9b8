//! Elicitation end to end through the in-memory client: derived form schemas, typed
//! accept / decline / cancel, content validation, keyed elicitations with context in
//! `_meta`, `ElicitExchange` history, and URL mode.

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tracksuit::client::{Client, ClientBuilder};
use tracksuit::elicitation::{ElicitError, Elicited, url_elicitation_required};
use tracksuit::protocol::*;
use tracksuit::{Ctx, ElicitForm, Elicits, Server, ServerHandle, ToolError, mcp_tool};
use tracksuit_tests::support::{self, call_once, next_notification, text};

#[derive(Debug, serde::Deserialize, Elicits, PartialEq)]
enum Size {
    Small,
    Large,
}

#[derive(Debug, serde::Deserialize, Elicits, PartialEq)]
enum Topping {
    #[elicit(title = "Extra cheese")]
    Cheese,
    #[elicit(title = "Mushrooms")]
    Mushroom,
}

/// A pizza order.
#[derive(Debug, serde::Deserialize, Elicits)]
#[allow(dead_code)]
struct Order {
    /// Where to send the receipt
    #[elicit(format = "email", title = "Email", max_length = 64)]
    email: String,
    #[elicit(min = 1, max = 5, default = 1)]
    quantity: u8,
    #[elicit(default = "Small")]
    size: Size,
    #[elicit(min_items = 1, max_items = 2)]
    toppings: Vec<Topping>,
    #[elicit(default = true)]
    delivery: Option<bool>,
    tip: Option<f64>,
}

#[test]
fn form_schema_is_flat_typed_and_validates_against_schema_json() {
    let schema = serde_json::to_value(Order::requested_schema()).expect("json");
    let p = &schema["properties"];
    assert_eq!(
        p["email"],
        json!({"type":"string","title":"Email","description":"Where to send the receipt","maxLength":64,"format":"email"})
    );
    assert_eq!(
        p["quantity"],
        json!({"type":"integer","minimum":1,"maximum":5,"default":1})
    );
    assert_eq!(
        p["size"],
        json!({"type":"string","enum":["Small","Large"],"default":"Small"})
    );
    assert_eq!(
        p["toppings"]["items"]["anyOf"][0],
        json!({"const":"Cheese","title":"Extra cheese"})
    );
    assert_eq!(p["toppings"]["minItems"], 1);
    assert_eq!(p["delivery"], json!({"type":"boolean","default":true}));
    assert_eq!(p["tip"]["type"], "number");
    assert_eq!(
        schema["required"],
        json!(["email", "quantity", "size", "toppings"])
    );
    assert_eq!(keys_of(p), DECLARED, "fields in declaration order");
}

/// `Order`'s fields as declared (not alphabetical).
const DECLARED: [&str; 6] = ["email", "quantity", "size", "toppings", "delivery", "tip"];

fn keys_of(properties: &Value) -> Vec<&str> {
    properties
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect()
}

#[derive(Debug, serde::Deserialize, serde::Serialize, Elicits)]
struct Cell {
    #[elicit(min = 0, max = 2)]
    row: u8,
    #[elicit(min = 0, max = 2)]
    col: u8,
}

/// The keys the game tool may ask for.
#[derive(Elicits)]
enum GameKeys {
    /// Pick your move.
    #[elicit(response = Cell)]
    PickMove {
        /// The board, row by row.
        board: String,
        /// Your symbol.
        you: char,
    },
}

/// Plays one move against the user.
#[mcp_tool(elicits = GameKeys)]
async fn play(ctx: &Ctx<GameKeys>) -> Result<String, ToolError> {
    match ctx
        .elicit(GameKeys::pick_move("X..|.O.|...".into(), 'X'))
        .await?
    {
        Elicited::Accept { value, exchange } => {
            let plain = exchange.messages();
            let with_board = exchange
                .with_arguments(|c| match c {
                    GameKeys::PickMove { board, .. } => json!({ "board": board }),
                })
                .messages();
            Ok(
                json!({"move": [value.row, value.col], "plain": plain, "withBoard": with_board})
                    .to_string(),
            )
        }
        Elicited::Decline => Ok("declined".into()),
        Elicited::Cancel => Ok("cancelled".into()),
    }
}

#[derive(Debug, serde::Deserialize, Elicits)]
struct Confirm {
    sure: bool,
}

/// The keys the purge tool may ask for.
#[derive(Elicits)]
enum PurgeKeys {
    /// Confirm deleting these files (the doc comment is the description; the message
    /// is the template).
    #[elicit(response = Confirm, message = "Delete {count} files in {dir}? {{sure}}")]
    DeleteFiles {
        dir: String,
        count: usize,
        /// Not in the message.
        names: Vec<String>,
    },
}

/// Deletes files after asking.
#[mcp_tool(elicits = PurgeKeys)]
async fn purge(ctx: &Ctx<PurgeKeys>) -> Result<String, ToolError> {
    let names = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
    let key = PurgeKeys::delete_files("/tmp/x".into(), names.len(), names);
    match ctx.elicit(key).await? {
        Elicited::Accept { value, .. } => Ok(format!("sure: {}", value.sure)),
        _ => Ok("kept".into()),
    }
}

/// Takes an order.
#[mcp_tool]
async fn order(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.elicit_form::<Order>("Your order?").await {
        Ok(Elicited::Accept { value, .. }) => Ok(format!(
            "{} x {:?} {:?} {:?}",
            value.quantity, value.size, value.toppings, value.delivery
        )),
        Ok(Elicited::Decline) => Ok("declined".into()),
        Ok(Elicited::Cancel) => Ok("cancelled".into()),
        Err(ElicitError::InvalidContent(e)) => Ok(format!("invalid: {e}")),
        Err(e) => Err(e.into()),
    }
}

/// Sends the user to a URL, then completes it.
#[mcp_tool]
async fn connect(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .elicit_url("Authorize access", "https://example.com/oauth")
        .await?;
    ctx.notify_elicitation_complete(&out.elicitation_id).await;
    Ok(format!("{:?}", out.action))
}

/// Needs an authorization first.
#[mcp_tool]
async fn needs_auth() -> Result<String, ToolError> {
    Err(url_elicitation_required(vec![(
        "Sign in first",
        "https://example.com/login",
    )]))
}

fn server() -> ServerHandle {
    Server::new(tracksuit::crate_info!())
        .tool(play)
        .tool(order)
        .tool(connect)
        .tool(needs_auth)
        .tool(purge)
        .build()
        .expect("the test server's names are distinct")
}

#[derive(Clone, Default)]
struct User {
    reply: Arc<Mutex<Value>>,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl User {
    fn answering(reply: Value) -> Self {
        User {
            reply: Arc::new(Mutex::new(reply)),
            seen: Arc::default(),
        }
    }

    fn client(&self) -> ClientBuilder {
        let me = self.clone();
        Client::builder().on_elicitation(move |p| {
            let me = me.clone();
            async move {
                me.seen
                    .lock()
                    .expect("lock")
                    .push(serde_json::to_value(&p).expect("json"));
                serde_json::from_value(me.reply.lock().expect("lock").clone())
                    .map_err(ErrorObject::internal)
            }
        })
    }
}

async fn run(user: &User, tool: &str) -> CallToolResult {
    call_once(server(), user.client(), tool).await
}

#[tokio::test]
async fn forms_accept_decline_cancel_and_validate() {
    let user = User::answering(
        json!({"action":"accept","content":{"email":"a@b.c","quantity":2,"size":"Large","toppings":["Cheese"]}}),
    );
    assert_eq!(text(&run(&user, "order").await), "2 x Large [Cheese] None");
    let seen = user.seen.lock().expect("lock")[0].clone();
    assert_eq!(
        seen["requestedSchema"]["properties"]["size"]["enum"],
        json!(["Small", "Large"])
    );
    assert_eq!(
        keys_of(&seen["requestedSchema"]["properties"]),
        DECLARED,
        "the client sees the fields in declaration order"
    );
    for (action, expected) in [("decline", "declined"), ("cancel", "cancelled")] {
        let user = User::answering(json!({"action": action}));
        assert_eq!(text(&run(&user, "order").await), expected);
    }
    let user = User::answering(
        json!({"action":"accept","content":{"email":"a@b.c","quantity":9,"size":"Large","toppings":["Cheese"]}}),
    );
    let t = text(&run(&user, "order").await);
    assert!(t.starts_with("invalid:") && t.contains("`quantity`"), "{t}");
}

#[tokio::test]
async fn keyed_elicitation_carries_context_and_history() {
    let user = User::answering(json!({"action":"accept","content":{"row":1,"col":2}}));
    let c = support::connect(server(), user.client()).await;
    let tools = c.list_tools(None).await.expect("list").tools;
    let t_play = tools.iter().find(|t| t.name == "play").expect("play");
    let keys = &t_play.meta.as_ref().expect("meta")["io.tracksuit/elicitation-keys"][0];
    assert_eq!(keys["key"], "PickMove");
    assert_eq!(keys["description"], "Pick your move.");
    assert_eq!(keys["responseSchema"]["properties"]["row"]["maximum"], 2);
    assert_eq!(
        keys["contextSchema"]["properties"]["board"]["description"],
        "The board, row by row."
    );

    let out: Value =
        serde_json::from_str(&text(&c.call_tool("play", json!({})).await.expect("call")))
            .expect("json");
    assert_eq!(out["move"], json!([1, 2]));
    let req = &user.seen.lock().expect("lock")[0];
    assert_eq!(req["message"], "Pick your move.");
    assert_eq!(
        req["_meta"]["io.tracksuit/elicitation"],
        json!({"key":"PickMove","context":{"board":"X..|.O.|...","you":"X"}})
    );
    assert_eq!(out["plain"][0]["content"][0]["type"], "tool_use");
    assert_eq!(out["plain"][0]["content"][0]["name"], "PickMove");
    assert_eq!(
        out["plain"][0]["content"][0]["input"],
        json!({}),
        "context stays out of history by default"
    );
    assert_eq!(out["plain"][1]["content"]["type"], "tool_result");
    assert_eq!(
        out["plain"][1]["content"]["structuredContent"],
        json!({"row":1,"col":2})
    );
    assert_eq!(
        out["plain"][1]["content"]["toolUseId"],
        out["plain"][0]["content"][0]["id"]
    );
    assert_eq!(
        out["withBoard"][0]["content"][0]["input"],
        json!({"board":"X..|.O.|..."})
    );
}

#[tokio::test]
async fn a_keyed_message_template_is_filled_from_the_context() {
    let user = User::answering(json!({"action":"accept","content":{"sure":true}}));
    assert_eq!(text(&run(&user, "purge").await), "sure: true");
    let req = &user.seen.lock().expect("lock")[0];
    assert_eq!(req["message"], "Delete 3 files in /tmp/x? {sure}");
    assert_eq!(
        req["_meta"]["io.tracksuit/elicitation"]["context"],
        json!({"dir":"/tmp/x","count":3,"names":["a","b","c"]})
    );
}

#[tokio::test]
async fn url_mode_and_url_required_errors() {
    let user = User::answering(json!({"action":"accept"}));
    let c = support::connect(server(), user.client()).await;
    let mut notes = c.notifications();
    let r = c.call_tool("connect", json!({})).await.expect("call");
    assert_eq!(text(&r), "Accept");
    let req = user.seen.lock().expect("lock")[0].clone();
    assert_eq!(req["mode"], "url");
    assert_eq!(req["url"], "https://example.com/oauth");
    let n = next_notification(&mut notes, "notifications/elicitation/complete").await;
    assert_eq!(
        n.params.expect("params")["elicitationId"],
        req["elicitationId"]
    );

    let err = c
        .call_tool("needs_auth", json!({}))
        .await
        .expect_err("a protocol error");
    match err {
        tracksuit::RequestError::Peer(e) => {
            assert_eq!(e.code, URL_ELICITATION_REQUIRED);
            assert_eq!(
                e.data.expect("data")["elicitations"][0]["url"],
                "https://example.com/login"
            );
        }
        other => panic!("expected -32042, got {other:?}"),
    }

    // A client with form-only elicitation: URL mode is a typed error, nothing is sent.
    let form_only = User::answering(json!({"action":"accept"}));
    let caps: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {}})).expect("caps");
    let c = support::connect(server(), form_only.client().capabilities(caps)).await;
    let r = c.call_tool("connect", json!({})).await.expect("call");
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("elicitation.url"));
    assert!(form_only.seen.lock().expect("lock").is_empty());
}

#[test]
fn a_derived_form_makes_its_schema_once_and_lends_it() {
    let first = <Order as ElicitForm>::requested_schema_cached();
    let again = <Order as ElicitForm>::requested_schema_cached();
    match (&first, &again) {
        (std::borrow::Cow::Borrowed(a), std::borrow::Cow::Borrowed(b)) => {
            assert!(std::ptr::eq(*a, *b), "the same schema both times");
        }
        _ => panic!("a derived form lends its schema"),
    }
    assert_eq!(*first, Order::requested_schema());
    // Its JSON text is written once too, byte for byte what the schema writes: a question
    // written from the text is the question written from the schema (same digest).
    let text = <Order as ElicitForm>::requested_schema_text().expect("a derived form's text");
    let again = <Order as ElicitForm>::requested_schema_text().expect("a derived form's text");
    assert!(std::ptr::eq(text, again), "the same text both times");
    let written = serde_json::to_string(&Order::requested_schema()).expect("json");
    assert_eq!(text.get(), written);
}

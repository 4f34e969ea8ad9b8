//! App state everywhere it is needed: `ctx.state::<T>()` in a free-function tool and in
//! completers of both forms (`(argument, value)` and `(ctx, argument, value)`), in both
//! protocol eras; completers of an `#[mcp_server]` block taking `&self`; a missing state is
//! a tool error naming the type, a second value of one type a build error.

use axum::body::Body;
use axum::http::Request;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use tracksuit::client::Client;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::{
    Ctx, Server, ServerError, ToolError, mcp_prompt, mcp_resource, mcp_server, mcp_tool,
};
use tracksuit_tests::support::{connect, text};

#[path = "mrtr.rs"]
mod mrtr;
use mrtr::send;

/// The books on the shelf: app state.
struct Shelf {
    titles: Vec<&'static str>,
    /// How often a tool read the shelf.
    reads: AtomicU64,
}

fn shelf() -> Shelf {
    Shelf {
        titles: vec!["Dune", "Dracula", "Emma"],
        reads: AtomicU64::new(0),
    }
}

/// How many books are on the shelf.
#[mcp_tool]
async fn shelf_size(ctx: &Ctx) -> Result<String, ToolError> {
    let shelf = ctx.state::<Shelf>()?;
    shelf.reads.fetch_add(1, Ordering::SeqCst);
    Ok(shelf.titles.len().to_string())
}

/// Titles on the shelf starting with what was typed (the `(ctx, argument, value)` form).
async fn shelf_titles(ctx: &Ctx, _argument: &str, typed: &str) -> Vec<String> {
    let Ok(shelf) = ctx.state::<Shelf>() else {
        return Vec::new();
    };
    shelf
        .titles
        .iter()
        .filter(|t| t.starts_with(typed))
        .map(|t| t.to_string())
        .collect()
}

/// A fixed list (the `(argument, value)` form, unchanged).
async fn moods(_argument: &str, typed: &str) -> Vec<String> {
    ["calm", "curious"]
        .iter()
        .filter(|m| m.starts_with(typed))
        .map(|m| m.to_string())
        .collect()
}

/// Borrow a book.
#[mcp_prompt(complete = shelf_titles)]
async fn borrow(
    /** the book */
    title: String,
) -> String {
    format!("I would like to borrow {title}.")
}

/// Pick a mood.
#[mcp_prompt(complete = moods)]
async fn mood(
    /** the mood */
    mood: String,
) -> String {
    format!("Feeling {mood}.")
}

/// A book by title.
#[mcp_resource(uri = "shelf://{title}", complete = shelf_titles)]
async fn book(title: String) -> String {
    format!("the text of {title}")
}

fn server() -> Server {
    Server::new(tracksuit::crate_info!())
        .state(shelf())
        .tool(shelf_size)
        .prompt(borrow)
        .prompt(mood)
        .resource_template(book)
}

fn values(done: &Value) -> Value {
    done["completion"]["values"].clone()
}

#[tokio::test]
async fn a_free_tool_and_completers_read_app_state_on_a_2025_session() {
    let handle = server().build().expect("distinct names");
    let c = connect(handle.clone(), Client::builder()).await;
    let size = c.call_tool("shelf_size", json!({})).await.expect("call");
    assert_eq!(text(&size), "3");
    assert_eq!(
        handle
            .state::<Shelf>()
            .expect("shelf")
            .reads
            .load(Ordering::SeqCst),
        1
    );
    let prompt = json!({"type": "ref/prompt", "name": "borrow"});
    let done = c.complete(prompt, "title", "D").await.expect("complete");
    assert_eq!(values(&done), json!(["Dune", "Dracula"]));
    let template = json!({"type": "ref/resource", "uri": "shelf://{title}"});
    let done = c.complete(template, "title", "E").await.expect("complete");
    assert_eq!(values(&done), json!(["Emma"]));
    let plain = json!({"type": "ref/prompt", "name": "mood"});
    let done = c.complete(plain, "mood", "cu").await.expect("complete");
    assert_eq!(values(&done), json!(["curious"]));
}

/// A modern `completion/complete` request.
fn modern_complete(reference: Value, argument: &str, value: &str) -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
        "ref": reference,
        "argument": {"name": argument, "value": value},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        },
    }});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "completion/complete")
        .body(Body::from(body.to_string()))
        .expect("request")
}

#[tokio::test]
async fn a_free_tool_and_completers_read_app_state_on_a_2026_client() {
    let handle = server().build().expect("distinct names");
    let app = StreamableHttp::new(handle, HttpOptions::default()).router("/mcp");
    let call = mrtr::call(1, "shelf_size", json!({}), json!({}));
    let (_, v) = send(&app, call).await;
    assert_eq!(v["result"]["content"][0]["text"], "3", "{v}");
    let prompt = json!({"type": "ref/prompt", "name": "borrow"});
    let (_, v) = send(&app, modern_complete(prompt, "title", "Dr")).await;
    assert_eq!(values(&v["result"]), json!(["Dracula"]), "{v}");
    let template = json!({"type": "ref/resource", "uri": "shelf://{title}"});
    let (_, v) = send(&app, modern_complete(template, "title", "Du")).await;
    assert_eq!(values(&v["result"]), json!(["Dune"]), "{v}");
}

#[tokio::test]
async fn a_missing_state_is_a_tool_error_naming_the_type() {
    let bare = Server::new(tracksuit::crate_info!())
        .tool(shelf_size)
        .prompt(borrow);
    let c = connect(bare, Client::builder()).await;
    let size = c.call_tool("shelf_size", json!({})).await.expect("call");
    assert_eq!(size.is_error, Some(true));
    assert_eq!(
        text(&size),
        "no app state of type `state::Shelf` on this server: give one to `Server::state`"
    );
    // A completer without its state answers nothing (it chose to).
    let prompt = json!({"type": "ref/prompt", "name": "borrow"});
    let done = c.complete(prompt, "title", "D").await.expect("complete");
    assert_eq!(values(&done), json!([]));
}

#[test]
fn app_state_is_set_once_per_type() {
    let twice = Server::new(tracksuit::crate_info!())
        .state(shelf())
        .state(shelf())
        .build();
    let Err(e) = twice else {
        panic!("two shelves were accepted")
    };
    assert_eq!(
        e,
        ServerError::DuplicateState {
            type_name: "state::Shelf"
        }
    );
    assert_eq!(
        e.to_string(),
        "app state of type `state::Shelf` is set twice; `Server::state` keeps one value per type"
    );
    // Values of different types live side by side.
    let both = Server::new(tracksuit::crate_info!())
        .state(shelf())
        .state(7u32)
        .build()
        .expect("two types");
    assert_eq!(both.state::<u32>().copied(), Ok(7));
}

/// A catalogue whose completers are its own methods.
struct Catalogue {
    languages: Vec<&'static str>,
}

#[mcp_server]
impl Catalogue {
    /// Review code.
    #[mcp_prompt(complete = Self::languages)]
    async fn review(
        &self,
        /** the language */
        language: String,
    ) -> String {
        format!("Review this {language}.")
    }

    /// A snippet by language.
    #[mcp_resource(uri = "snippet://{language}", complete = with_ctx)]
    async fn snippet(&self, language: String) -> String {
        format!("fn main() {{}} // {language}")
    }

    /// Languages, from the server's own field.
    async fn languages(&self, _argument: &str, typed: &str) -> Vec<String> {
        self.languages
            .iter()
            .filter(|l| l.starts_with(typed))
            .map(|l| l.to_string())
            .collect()
    }

    /// Languages again, with the request's context and the shelf's size appended.
    async fn with_ctx(&self, ctx: &Ctx, argument: &str, typed: &str) -> Vec<String> {
        let mut out = self.languages(argument, typed).await;
        out.push(ctx.state::<u32>().map_or(0, |n| *n).to_string());
        out
    }
}

#[tokio::test]
async fn completers_in_a_server_block_take_self() {
    let catalogue = Catalogue {
        languages: vec!["rust", "ruby", "go"],
    };
    let server = Server::new(tracksuit::crate_info!())
        .state(42u32)
        .tools(catalogue);
    let c = connect(server, Client::builder()).await;
    let prompt = json!({"type": "ref/prompt", "name": "review"});
    let done = c
        .complete(prompt, "language", "ru")
        .await
        .expect("complete");
    assert_eq!(values(&done), json!(["rust", "ruby"]));
    let template = json!({"type": "ref/resource", "uri": "snippet://{language}"});
    let done = c
        .complete(template, "language", "g")
        .await
        .expect("complete");
    assert_eq!(values(&done), json!(["go", "42"]));
}

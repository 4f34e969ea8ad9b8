//! Generated code adds no lint to user code: every macro and attribute over one-line bodies,
//! compiled with every rustc warning denied (here, by trybuild) and, as a module of the
//! tests crate, under `cargo clippy --all-targets -- -D warnings` (clippy's default set).
#![deny(warnings)]

use tokio_util::sync::CancellationToken;
use tracksuit::protocol::ContentBlock;
use tracksuit::{
    Ctx, Elicits, Json, PhaseCtx, Server, ToolError, mcp_prompt, mcp_resource, mcp_server,
    mcp_tool,
};

/// A search.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct Query {
    /// What to look for.
    pub(crate) text: String,
}

/// A hit.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Hit {
    /// Where.
    pub(crate) at: u32,
}

/// Asked of the user.
#[derive(serde::Deserialize, Elicits)]
#[elicit(legacy_titles)]
pub(crate) struct Confirm {
    /// Go ahead?
    #[elicit(title = "Go", default = true)]
    pub(crate) ok: bool,
    /// A note.
    #[elicit(min_length = 1, max_length = 9)]
    pub(crate) note: Option<String>,
    /// How many.
    #[elicit(min = 1, max = 3)]
    pub(crate) copies: Option<u8>,
    /// When.
    #[elicit(format = "date")]
    pub(crate) on: Option<String>,
    /// Which.
    #[elicit(min_items = 1, max_items = 2)]
    pub(crate) tags: Option<Vec<Colour>>,
}

/// A choice.
#[derive(serde::Deserialize, Elicits)]
pub(crate) enum Colour {
    /// Red.
    #[elicit(title = "Red", rename = "r")]
    Red,
    /// Blue.
    Blue,
}

/// Keys a tool asks under.
#[derive(Elicits)]
pub(crate) enum Keys {
    /// Sure?
    #[elicit(response = Confirm, message = "Sure about {what}?")]
    Sure {
        /// About what.
        what: String,
    },
}

/// Echoes.
#[mcp_tool]
async fn search(query: String) -> String { query }

/// Nothing, shown in an app.
#[mcp_tool(ui = "ui://app/index.html", crate = ::tracksuit)]
async fn nothing() {}

/// A constant.
#[mcp_tool(name = "answer.get", title = "Answer", description = "The answer", read_only, destructive, idempotent, open_world, icons = ["https://example.com/a.png"], meta = r#"{"k": 1}"#)]
async fn answer() -> &'static str { "42" }

/// By parameters.
#[mcp_tool]
async fn find(#[params] q: Query) -> Json<Vec<Hit>> { Json(vec![Hit { at: q.text.len() as u32 }]) }

/// With context and cancellation.
#[mcp_tool]
async fn with_ctx(ctx: &Ctx, cancel: CancellationToken, n: Option<u8>) -> Result<String, ToolError> { Ok(format!("{:?}{}{n:?}", ctx.request_id(), cancel.is_cancelled())) }

/// The context by value.
#[mcp_tool]
async fn owned_ctx(ctx: Ctx) -> Vec<ContentBlock> { vec![ContentBlock::text(format!("{:?}", ctx.request_id()))] }

/// Fails.
#[mcp_tool]
async fn fails() -> Result<String, String> { Err("no".into()) }

/// Asks by key.
#[mcp_tool(elicits = Keys)]
async fn ask(ctx: &Ctx<Keys>) -> Result<String, ToolError> { Ok(format!("{:?}", ctx.elicit(Keys::sure("it".into())).await?.accepted().map(|c| (c.ok, c.note, c.copies, c.on, c.tags.map(|t| t.len()))))) }

/// Scoped.
#[mcp_tool(scopes = ["docs:{doc}"], scopes_with = extra)]
async fn scoped(doc: String) -> String { doc }

fn extra(_: &serde_json::Value) -> Vec<String> { Vec::new() }

/// As a task.
#[mcp_tool(task_support = "optional")]
async fn slow(n: u64) -> String { n.to_string() }

/// A handoff.
pub(crate) struct Handoff;

#[mcp_tool]
impl Handoff {
    async fn before(n: u8, _ctx: &PhaseCtx) -> Result<u8, ToolError> { Ok(n) }

    async fn client(n: &u8, _ctx: &Ctx) -> Result<bool, ToolError> { Ok(*n > 0) }

    async fn after(n: u8, yes: bool, _ctx: &PhaseCtx) -> String { format!("{n}{yes}") }
}

/// A prompt.
#[mcp_prompt]
async fn greet(name: String) -> String { name }

/// A prompt with every attribute.
#[mcp_prompt(name = "brief", title = "Brief", description = "A brief", complete = topics, scopes = ["t:{topic}"])]
async fn brief(topic: String, depth: Option<u8>, ctx: &Ctx) -> Result<String, ToolError> { Ok(format!("{topic}{depth:?}{:?}", ctx.request_id())) }

async fn topics(_argument: &str, typed: &str) -> Vec<String> { vec![typed.to_owned()] }

/// A resource.
#[mcp_resource(uri = "mem://a")]
async fn fixed() -> String { "a".into() }

/// A template with every attribute.
#[mcp_resource(uri = "mem://n/{n}", name = "n", title = "N", description = "A number", mime_type = "text/plain", complete = numbers, scopes = ["n:{n}"])]
async fn numbered(n: u8) -> Vec<u8> { vec![n] }

async fn numbers(_argument: &str, _typed: &str) -> Vec<String> { Vec::new() }

/// An app.
#[mcp_resource(uri = "ui://app/index.html", app)]
async fn app() -> String { "<p>app</p>".into() }

/// A server.
pub(crate) struct Notes {
    /// Its state.
    pub(crate) prefix: String,
}

#[mcp_server(crate = ::tracksuit)]
impl Notes {
    /// Reads.
    #[mcp_tool]
    async fn read(&self) -> String { self.prefix.clone() }

    /// Writes.
    #[mcp_tool(idempotent)]
    async fn write(&self, text: String) -> String { text }

    /// Plays.
    #[mcp_tool(client = Self::turn, after = finish)]
    async fn play(&self, n: u8, _ctx: &PhaseCtx) -> Result<u8, ToolError> { Ok(n) }

    async fn turn(n: &u8, _ctx: &Ctx) -> Result<u8, ToolError> { Ok(*n) }

    async fn finish(&self, _n: u8, m: u8, _ctx: &PhaseCtx) -> String { m.to_string() }

    /// Suggests.
    #[mcp_prompt(complete = Self::words)]
    async fn suggest(&self, topic: String) -> String { topic }

    /// A note.
    #[mcp_resource(uri = "notes://{id}", complete = Self::words)]
    async fn note(&self, id: u64) -> String { id.to_string() }

    async fn words(&self, _argument: &str, typed: &str) -> Vec<String> { vec![typed.to_owned()] }
}

/// Builds the server of every item above.
pub(crate) fn main() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(search).tool(nothing).tool(answer).tool(find).tool(with_ctx).tool(owned_ctx)
        .tool(fails).tool(ask).tool(scoped).tool(slow).tool(Handoff)
        .prompt(greet).prompt(brief)
        .resource(fixed).resource_template(numbered).resource(app)
        .tools(Notes { prefix: String::new() });
    let built = server.build().expect("every item is distinct");
    assert_eq!(built.tool_names().len(), 14);
}

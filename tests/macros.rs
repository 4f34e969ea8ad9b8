//! The authoring macros end to end through the in-memory client: schemas from types and
//! docs, argument validation as execution errors, structured output, context injection.

use serde_json::{Value, json};
use tracksuit::client::Client;
use tracksuit::protocol::*;
use tracksuit::{Ctx, Json, Server, mcp_tool};
use tracksuit_tests::support::connect;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

/// Add two numbers.
#[mcp_tool(read_only, idempotent)]
async fn add(
    /// left operand
    a: i64,
    /// right operand
    b: Option<i64>,
) -> Json<Sum> {
    Json(Sum {
        sum: a + b.unwrap_or(0),
    })
}

/// Greets someone, logging as it goes.
#[mcp_tool(name = "say.hello", title = "Say hello", icons = ["https://example.com/wave.png"], meta = r#"{"ui":"card"}"#)]
async fn hello(ctx: &Ctx, name: String) -> Result<String, String> {
    ctx.log(LoggingLevel::Info, format!("greeting {name}"))
        .await;
    if name.is_empty() {
        return Err("name must not be empty".into());
    }
    Ok(format!("Hello, {name}!"))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Search {
    /// What to look for.
    query: String,
    limit: Option<u32>,
}

/// Searches, taking the whole argument object as one struct.
#[mcp_tool]
async fn search(#[params] p: Search) -> String {
    format!("{}:{}", p.query, p.limit.unwrap_or(10))
}

async fn client() -> Client {
    let server = Server::new(tracksuit::crate_info!())
        .tool(add)
        .tool(hello)
        .tool(search);
    connect(server, Client::builder()).await
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} listed"))
}

#[tokio::test]
async fn descriptors_come_from_types_docs_and_attributes() {
    let c = client().await;
    let tools = c.list_tools(None).await.expect("list").tools;
    let t_add = tool(&tools, "add");
    assert_eq!(t_add.description.as_deref(), Some("Add two numbers."));
    let schema = Value::Object(t_add.input_schema.clone());
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["a"]["description"], "left operand");
    assert_eq!(
        schema["required"],
        json!(["a"]),
        "Option<T> is not required"
    );
    assert!(schema.get("title").is_none());
    let out = Value::Object(
        t_add
            .output_schema
            .clone()
            .expect("Json<T> has an output schema"),
    );
    assert_eq!(out["properties"]["sum"]["type"], "integer");
    let ann = t_add.annotations.clone().expect("annotations");
    assert_eq!(
        (
            ann.read_only_hint,
            ann.idempotent_hint,
            ann.destructive_hint
        ),
        (Some(true), Some(true), None)
    );

    let t_hello = tool(&tools, "say.hello");
    assert_eq!(t_hello.title.as_deref(), Some("Say hello"));
    assert_eq!(
        t_hello.icons.as_ref().map(|i| i[0].src.as_str()),
        Some("https://example.com/wave.png")
    );
    assert_eq!(
        t_hello.meta.as_ref().map(|m| m["ui"].clone()),
        Some(json!("card"))
    );
    let schema = Value::Object(t_hello.input_schema.clone());
    assert!(
        schema["properties"].get("ctx").is_none(),
        "context parameters are not arguments"
    );
    assert_eq!(schema["required"], json!(["name"]));

    let t_search = tool(&tools, "search");
    assert_eq!(
        t_search.input_schema["properties"]["query"]["description"],
        "What to look for."
    );
}

#[tokio::test]
async fn calls_validate_arguments_and_shape_results() {
    let c = client().await;
    let r = c
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .expect("call");
    assert_eq!(r.structured_content.expect("structured")["sum"], 5);
    assert_eq!(r.content[0].as_text(), Some(r#"{"sum":5}"#));

    let bad = c
        .call_tool("add", json!({"a": "two"}))
        .await
        .expect("an execution error, not a protocol error");
    assert_eq!(bad.is_error, Some(true));
    let text = bad.content[0].as_text().unwrap_or_default().to_owned();
    assert!(text.contains("`a`"), "names the field: {text}");

    let missing = c.call_tool("add", json!({})).await.expect("call");
    assert_eq!(missing.is_error, Some(true));
    assert!(
        missing.content[0]
            .as_text()
            .unwrap_or_default()
            .contains("\"a\"")
    );

    let ok = c
        .call_tool("say.hello", json!({"name": "Ada"}))
        .await
        .expect("call");
    assert_eq!(ok.content[0].as_text(), Some("Hello, Ada!"));
    let err = c
        .call_tool("say.hello", json!({"name": ""}))
        .await
        .expect("call");
    assert_eq!(err.is_error, Some(true));
    assert_eq!(err.content[0].as_text(), Some("name must not be empty"));

    let s = c
        .call_tool("search", json!({"query": "rust"}))
        .await
        .expect("call");
    assert_eq!(s.content[0].as_text(), Some("rust:10"));
    // The tool function is still callable directly.
    assert_eq!(
        search(Search {
            query: "x".into(),
            limit: Some(1)
        })
        .await,
        "x:1"
    );
}

/// A counter whose tools share state.
struct Counter {
    total: std::sync::atomic::AtomicI64,
}

#[tracksuit::mcp_server]
impl Counter {
    /// Adds to the running total and returns it.
    #[mcp_tool(name = "counter.add", idempotent)]
    async fn add(
        &self,
        /** how much to add */
        n: i64,
    ) -> String {
        let total = self.total.fetch_add(n, std::sync::atomic::Ordering::SeqCst) + n;
        total.to_string()
    }

    /// The running total.
    #[mcp_tool(read_only)]
    async fn total(&self, ctx: &Ctx) -> String {
        let _ = ctx.request_id();
        self.total
            .load(std::sync::atomic::Ordering::SeqCst)
            .to_string()
    }

    /// Describes the total, for a prompt.
    #[mcp_prompt(name = "counter.explain")]
    async fn explain(
        &self,
        /** what to call it */
        label: Option<String>,
    ) -> String {
        let total = self.total.load(std::sync::atomic::Ordering::SeqCst);
        format!("{} is {total}", label.unwrap_or_else(|| "the total".into()))
    }

    /// The total as a resource.
    #[mcp_resource(uri = "counter://total", mime_type = "text/plain")]
    async fn total_resource(&self) -> String {
        self.total
            .load(std::sync::atomic::Ordering::SeqCst)
            .to_string()
    }

    /// The total times `n`.
    #[mcp_resource(uri = "counter://times/{n}")]
    async fn times(&self, ctx: &Ctx, n: i64) -> String {
        let _ = ctx.request_id();
        (self.total.load(std::sync::atomic::Ordering::SeqCst) * n).to_string()
    }

    /// Not a tool: ordinary methods stay ordinary.
    fn reset(&self) {
        self.total.store(0, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Greets someone.
#[tracksuit::mcp_prompt(title = "Greeting", complete = complete_names)]
async fn greet(
    /// Who to greet
    name: String,
    /// How formal to be
    style: Option<String>,
) -> String {
    match style.as_deref() {
        Some("formal") => format!("Good day, {name}."),
        _ => format!("Hi {name}!"),
    }
}

async fn complete_names(_argument: &str, value: &str) -> Vec<String> {
    ["Ada", "Alan", "Grace"]
        .iter()
        .filter(|n| n.starts_with(value))
        .map(|n| (*n).to_owned())
        .collect()
}

/// The answer.
#[tracksuit::mcp_resource(uri = "mem://answer", mime_type = "text/plain")]
async fn answer() -> String {
    "42".into()
}

/// An item by numeric id.
#[tracksuit::mcp_resource(uri = "mem://items/{id}", mime_type = "application/json")]
async fn item(id: u32) -> Result<String, String> {
    if id == 0 {
        return Err("item 0 does not exist".into());
    }
    Ok(format!(r#"{{"id":{id}}}"#))
}

#[tokio::test]
async fn server_impl_tools_share_state() {
    let counter = Counter {
        total: std::sync::atomic::AtomicI64::new(0),
    };
    counter.reset();
    let server = Server::new(tracksuit::crate_info!()).tools(counter);
    let c = connect(server, Client::builder()).await;
    let tools = c.list_tools(None).await.expect("list").tools;
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["counter.add", "total"]);
    assert_eq!(
        tools[0].input_schema["properties"]["n"]["description"],
        "how much to add"
    );
    c.call_tool("counter.add", json!({"n": 2}))
        .await
        .expect("call");
    let r = c
        .call_tool("counter.add", json!({"n": 3}))
        .await
        .expect("call");
    assert_eq!(r.content[0].as_text(), Some("5"));
    let r = c.call_tool("total", json!({})).await.expect("call");
    assert_eq!(r.content[0].as_text(), Some("5"));

    // The block's prompt and resources share the same state.
    let prompts = c.list_prompts(None).await.expect("list").prompts;
    assert_eq!(prompts[0].name, "counter.explain");
    let got = c
        .get_prompt("counter.explain", json!({"label": "sum"}))
        .await
        .expect("get");
    assert_eq!(
        serde_json::to_value(&got.messages[0]).expect("json")["content"]["text"],
        "sum is 5"
    );
    let r = c.read_resource("counter://total").await.expect("read");
    assert_eq!(
        serde_json::to_value(&r.contents[0]).expect("json")["text"],
        "5"
    );
    let r = c.read_resource("counter://times/3").await.expect("read");
    assert_eq!(
        serde_json::to_value(&r.contents[0]).expect("json")["text"],
        "15"
    );
}

#[tokio::test]
async fn prompts_and_resources_from_macros() {
    let server = Server::new(tracksuit::crate_info!())
        .prompt(greet)
        .resource(answer)
        .resource_template(item);
    let c = connect(server, Client::builder()).await;

    let prompts = c.list_prompts(None).await.expect("list").prompts;
    let args = prompts[0].arguments.clone().expect("arguments");
    assert_eq!(
        (
            args[0].name.as_str(),
            args[0].required,
            args[0].description.as_deref()
        ),
        ("name", Some(true), Some("Who to greet"))
    );
    assert_eq!(
        (args[1].name.as_str(), args[1].required),
        ("style", Some(false))
    );
    let got = c
        .get_prompt("greet", json!({"name": "Ada", "style": "formal"}))
        .await
        .expect("get");
    assert_eq!(
        serde_json::to_value(&got.messages[0].content).expect("json")["text"],
        "Good day, Ada."
    );
    let missing = c.get_prompt("greet", json!({})).await;
    assert!(matches!(missing, Err(tracksuit::RequestError::Peer(e)) if e.code == INVALID_PARAMS));
    let done = c
        .complete(json!({"type": "ref/prompt", "name": "greet"}), "name", "A")
        .await
        .expect("complete");
    assert_eq!(done["completion"]["values"], json!(["Ada", "Alan"]));

    let r = c.read_resource("mem://answer").await.expect("read");
    assert_eq!(
        serde_json::to_value(&r.contents[0]).expect("json"),
        json!({"uri":"mem://answer","mimeType":"text/plain","text":"42"})
    );
    let templates = c
        .list_resource_templates(None)
        .await
        .expect("templates")
        .resource_templates;
    assert_eq!(templates[0].uri_template, "mem://items/{id}");
    let r = c.read_resource("mem://items/7").await.expect("read");
    assert_eq!(
        serde_json::to_value(&r.contents[0]).expect("json")["text"],
        r#"{"id":7}"#
    );
    let bad = c.read_resource("mem://items/seven").await;
    assert!(
        matches!(bad, Err(tracksuit::RequestError::Peer(e)) if e.code == INVALID_PARAMS && e.message.contains("`id`"))
    );
    let err = c.read_resource("mem://items/0").await;
    assert!(
        matches!(err, Err(tracksuit::RequestError::Peer(e)) if e.message.contains("item 0 does not exist"))
    );
}

#[test]
fn duplicate_tool_names_are_an_error_not_a_panic() {
    let error = Server::new(tracksuit::crate_info!())
        .tool(add)
        .tool(add)
        .build()
        .expect_err("two tools named add");
    assert_eq!(
        error,
        tracksuit::ServerError::Duplicate {
            kind: "tool",
            name: "add".into(),
            existing_from: None,
            added_from: None,
        }
    );
    assert_eq!(
        error.to_string(),
        "a tool named `add` is already registered on this server"
    );
}

async fn complete_ids(_variable: &str, typed: &str) -> Vec<String> {
    ["1", "12", "2"]
        .iter()
        .filter(|i| i.starts_with(typed))
        .map(|i| (*i).to_owned())
        .collect()
}

/// Rows by id, with completion for the id.
#[tracksuit::mcp_resource(uri = "db://rows/{id}", complete = complete_ids)]
async fn row(id: u32) -> String {
    id.to_string()
}

#[tokio::test]
async fn template_variables_complete() {
    let server = Server::new(tracksuit::crate_info!()).resource_template(row);
    let c = connect(server, Client::builder()).await;
    let done = c
        .complete(
            json!({"type": "ref/resource", "uri": "db://rows/{id}"}),
            "id",
            "1",
        )
        .await
        .expect("complete");
    assert_eq!(done["completion"]["values"], json!(["1", "12"]));
    assert_eq!(done["completion"]["total"], 2);
}

#[test]
fn a_tool_without_ctx_says_it_cannot_ask_the_client() {
    use tracksuit::IntoTool;
    assert!(!add.tool().asks_client(), "add has no Ctx");
    assert!(!search.tool().asks_client(), "search has no Ctx");
    assert!(hello.tool().asks_client(), "hello takes &Ctx");
}

/// Caps a count (its parameter is named like the function).
#[mcp_tool]
async fn limit(limit: Option<u32>) -> String {
    format!("limit {}", limit.unwrap_or(10))
}

/// Counts on (a mutable parameter named like the function).
#[mcp_tool]
async fn count(mut count: u32) -> String {
    count += 1;
    count.to_string()
}

/// A user (the template variable and the function share a name).
#[tracksuit::mcp_resource(uri = "mem://users/{user}")]
async fn user(user: String) -> String {
    format!("user {user}")
}

/// A review (the argument and the prompt share a name).
#[tracksuit::mcp_prompt]
async fn review(review: String) -> String {
    format!("review {review}")
}

#[tokio::test]
async fn a_parameter_may_share_its_functions_name() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(limit)
        .tool(count)
        .resource_template(user)
        .prompt(review);
    let c = connect(server, Client::builder()).await;
    let text = |r: tracksuit::protocol::CallToolResult| {
        serde_json::to_value(&r.content[0]).expect("json")["text"].clone()
    };
    let r = c
        .call_tool("limit", json!({"limit": 3}))
        .await
        .expect("call");
    assert_eq!(text(r), "limit 3");
    let r = c.call_tool("limit", json!({})).await.expect("call");
    assert_eq!(text(r), "limit 10");
    let r = c
        .call_tool("count", json!({"count": 41}))
        .await
        .expect("call");
    assert_eq!(text(r), "42");
    let r = c.read_resource("mem://users/ann").await.expect("read");
    assert_eq!(
        serde_json::to_value(&r.contents[0]).expect("json")["text"],
        "user ann"
    );
    let got = c
        .get_prompt("review", json!({"review": "lgtm"}))
        .await
        .expect("get");
    assert_eq!(
        serde_json::to_value(&got.messages[0]).expect("json")["content"]["text"],
        "review lgtm"
    );
    // The functions stay callable directly.
    assert_eq!(limit(Some(1)).await, "limit 1");
    assert_eq!(user("bo".into()).await, "user bo");
}

mod renamed {
    //! The context imported under another name is still the context: recognised by type.
    use tracksuit::Ctx as McpCtx;
    use tracksuit::{ToolError, mcp_tool};

    /// Greets, reading the request through the renamed context.
    #[mcp_tool]
    pub async fn aliased(ctx: &McpCtx, name: String) -> Result<String, ToolError> {
        Ok(format!("hello {name} (cancelled: {})", ctx.is_cancelled()))
    }

    /// A prompt taking the renamed context.
    #[tracksuit::mcp_prompt]
    pub async fn aliased_prompt(_ctx: &McpCtx, topic: String) -> String {
        format!("about {topic}")
    }
}

#[tokio::test]
async fn the_context_is_recognised_by_type_not_by_name() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(renamed::aliased)
        .prompt(renamed::aliased_prompt);
    let c = connect(server, Client::builder()).await;
    let tools = c.list_tools(None).await.expect("list").tools;
    let t = tool(&tools, "aliased");
    assert_eq!(
        serde_json::to_value(&t.input_schema).expect("json")["required"],
        json!(["name"]),
        "the context is not an argument"
    );
    let r = c
        .call_tool("aliased", json!({"name": "ann"}))
        .await
        .expect("call");
    assert_eq!(
        serde_json::to_value(&r.content[0]).expect("json")["text"],
        "hello ann (cancelled: false)"
    );
    use tracksuit::IntoTool;
    assert!(renamed::aliased.tool().asks_client(), "it takes a context");
    let got = c
        .get_prompt("aliased_prompt", json!({"topic": "tea"}))
        .await
        .expect("get");
    assert_eq!(
        serde_json::to_value(&got.messages[0]).expect("json")["content"]["text"],
        "about tea"
    );
}

mod by_value {
    //! The context by value under another name, and through a type alias.
    use tracksuit::Ctx as McpCtx;
    use tracksuit::mcp_tool;

    type Alias = tracksuit::Ctx;

    /// Greets, taking the renamed context by value.
    #[mcp_tool]
    pub async fn owned(ctx: McpCtx, name: String) -> String {
        format!("hello {name} (cancelled: {})", ctx.is_cancelled())
    }

    /// Greets, through a type alias of the context.
    #[mcp_tool]
    pub async fn aliased_owned(name: String, ctx: Alias) -> String {
        format!("hi {name} (cancelled: {})", ctx.is_cancelled())
    }

    /// A prompt taking the renamed context by value.
    #[tracksuit::mcp_prompt]
    pub async fn owned_prompt(topic: String, ctx: McpCtx, tone: Option<String>) -> String {
        let _ = ctx;
        format!("about {topic} {}", tone.unwrap_or_default())
    }
}

#[tokio::test]
async fn a_context_by_value_under_another_name_is_the_context() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(by_value::owned)
        .tool(by_value::aliased_owned);
    let c = connect(server, Client::builder()).await;
    let tools = c.list_tools(None).await.expect("list").tools;
    for (name, greeting) in [("owned", "hello ann"), ("aliased_owned", "hi ann")] {
        let schema = serde_json::to_value(&tool(&tools, name).input_schema).expect("json");
        assert_eq!(schema["required"], json!(["name"]), "{name}");
        assert_eq!(
            schema["properties"].as_object().map(|p| p.len()),
            Some(1),
            "{name}: the context is not an argument"
        );
        let r = c
            .call_tool(name, json!({"name": "ann"}))
            .await
            .expect("call");
        assert_eq!(
            serde_json::to_value(&r.content[0]).expect("json")["text"],
            format!("{greeting} (cancelled: false)")
        );
    }
    use tracksuit::IntoTool;
    assert!(by_value::owned.tool().asks_client(), "it takes a context");
}

#[tokio::test]
async fn a_prompt_takes_the_context_by_value_under_another_name() {
    let server = Server::new(tracksuit::crate_info!()).prompt(by_value::owned_prompt);
    let c = connect(server, Client::builder()).await;
    let prompts = c.list_prompts(None).await.expect("list").prompts;
    let args: Vec<_> = prompts[0]
        .arguments
        .iter()
        .flatten()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    assert_eq!(args, [("topic", Some(true)), ("tone", Some(false))]);
    let got = c
        .get_prompt("owned_prompt", json!({"topic": "tea"}))
        .await
        .expect("get");
    assert_eq!(
        serde_json::to_value(&got.messages[0]).expect("json")["content"]["text"],
        "about tea "
    );
}

mod same_schema {
    //! The same arguments, separately and as a `#[params]` struct.
    use tracksuit::mcp_tool;

    /// A place.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Place {
        /// Its name.
        pub name: String,
    }

    // The same fields as `separate`'s parameters (no doc: it would be the schema's description).
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Together {
        /// # Where
        /// The place to go.
        pub place: Place,
        /// How many, if not one.
        pub count: Option<u32>,
        /// Raw identifiers lose their `r#`.
        pub r#type: String,
        pub tags: Vec<String>,
    }

    /// Goes.
    #[mcp_tool]
    pub async fn separate(
        /// # Where
        /// The place to go.
        place: Place,
        /// How many, if not one.
        count: Option<u32>,
        /// Raw identifiers lose their `r#`.
        r#type: String,
        tags: Vec<String>,
    ) -> String {
        format!("{} {count:?} {type} {tags:?}", place.name)
    }

    /// Goes.
    #[mcp_tool]
    pub async fn together(#[params] t: Together) -> String {
        format!("{} {:?} {} {:?}", t.place.name, t.count, t.r#type, t.tags)
    }
}

#[tokio::test]
async fn separate_arguments_publish_what_a_params_struct_of_them_would() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(same_schema::separate)
        .tool(same_schema::together);
    let c = connect(server, Client::builder()).await;
    let tools = c.list_tools(None).await.expect("list").tools;
    let mut separate = serde_json::to_value(&tool(&tools, "separate").input_schema).expect("json");
    let mut together = serde_json::to_value(&tool(&tools, "together").input_schema).expect("json");
    for schema in [&mut separate, &mut together] {
        if let Some(o) = schema.as_object_mut() {
            o.remove("title");
        }
    }
    assert_eq!(separate, together);
    assert_eq!(separate["properties"]["place"]["title"], "Where");
    assert_eq!(separate["required"], json!(["place", "type", "tags"]));
    let args = json!({"place": {"name": "home"}, "type": "walk", "tags": ["a"]});
    for name in ["separate", "together"] {
        let r = c.call_tool(name, args.clone()).await.expect("call");
        assert_eq!(
            serde_json::to_value(&r.content[0]).expect("json")["text"],
            "home None walk [\"a\"]",
            "{name}"
        );
        let bad = c
            .call_tool(
                name,
                json!({"place": {"name": 1}, "type": "walk", "tags": []}),
            )
            .await
            .expect("an execution error, not a protocol error");
        assert_eq!(bad.is_error, Some(true), "{name}");
    }
}

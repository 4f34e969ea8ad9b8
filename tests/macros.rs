//! The authoring macros end to end through the in-memory client: schemas from types and
//! docs, argument validation as execution errors, structured output, context injection.

use serde_json::{Value, json};
use tracksuit::client::{Client, connect_in_memory};
use tracksuit::protocol::*;
use tracksuit::{Ctx, Json, Server, mcp_tool};

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
    connect_in_memory(server, Client::builder())
        .await
        .expect("connects")
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
        search::run(Search {
            query: "x".into(),
            limit: Some(1)
        })
        .await,
        "x:1"
    );
}

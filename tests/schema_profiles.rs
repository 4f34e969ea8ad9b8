//! Schema profiles per client: the profile chosen from a client's `clientInfo` shapes its
//! `tools/list` (2025 sessions and 2026-07-28 requests alike) and `sample_schema`'s
//! `__schema__` tool.

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tracksuit::client::{Client, Era};
use tracksuit::protocol::{CreateMessageResult, Implementation};
use tracksuit::{Ctx, SchemaProfile, Server, ServerHandle, ServerOptions, ToolError, mcp_tool};

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Inner {
    n: Option<u8>,
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    inner: Option<Inner>,
    word: String,
}

/// Reads a file.
#[mcp_tool]
async fn read(path: String, limit: Option<u32>, inner: Option<Inner>) -> String {
    let _ = (limit, inner);
    path
}

/// Asks the client's model for an answer.
#[mcp_tool]
async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
    let answer = ctx.sample_schema::<Answer>().prompt("Say a word").await?;
    Ok(format!("{} {}", ctx.schema_profile(), answer.parsed.word))
}

fn server() -> ServerHandle {
    let options = ServerOptions::default()
        .strict_schemas(false)
        .schema_profile_by(|info, _| match info.name.as_str() {
            "openai-agent" => SchemaProfile::OpenAiStrict,
            "gemini-host" => SchemaProfile::GeminiSafe,
            "raw-host" => SchemaProfile::Raw,
            _ => SchemaProfile::Portable,
        });
    Server::with_options(Implementation::new("profiles", "1"), options)
        .tool(read)
        .tool(ask)
        .build()
        .expect("server")
}

/// The `read` tool's input schema as listed to a client named `name` speaking `era`.
async fn listed(name: &str, era: Era) -> Value {
    let builder = Client::builder()
        .era(era)
        .info(Implementation::new(name, "1.0"));
    let client = tracksuit::host::connect_in_memory(server(), builder)
        .await
        .expect("connect");
    let tools = client.list_tools(None).await.expect("tools/list").tools;
    let read = tools.iter().find(|t| t.name == "read").expect("read");
    Value::Object(read.input_schema.clone())
}

#[tokio::test]
async fn each_client_gets_its_profile_on_tools_list_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        let portable = listed("claude-code", era).await;
        assert_eq!(portable["required"], json!(["path"]), "{era:?}");
        assert_eq!(portable["properties"]["limit"]["type"], "integer");
        assert!(portable.get("additionalProperties").is_none(), "{portable}");

        let strict = listed("openai-agent", era).await;
        assert_eq!(
            strict["required"],
            json!(["path", "limit", "inner"]),
            "{era:?}"
        );
        assert_eq!(strict["additionalProperties"], false);
        assert_eq!(
            strict["properties"]["limit"]["type"],
            json!(["integer", "null"])
        );
        assert_eq!(strict["properties"]["inner"]["required"], json!(["n"]));

        let gemini = listed("gemini-host", era).await;
        assert!(gemini.get("additionalProperties").is_none(), "{gemini}");
        assert!(gemini.get("$schema").is_none(), "{gemini}");
        assert_eq!(gemini["required"], json!(["path"]), "{era:?}");
        assert_eq!(
            gemini["properties"]["inner"]["properties"]["n"]["type"],
            "integer"
        );

        let raw = listed("raw-host", era).await;
        assert_eq!(raw["$defs"]["Inner"]["type"], "object", "{era:?} {raw}");
        assert!(raw.to_string().contains("\"null\""), "{raw}");
    }
}

#[tokio::test]
async fn a_listed_profile_is_made_once_and_served_again() {
    let server = server();
    let mut seen = Vec::new();
    for _ in 0..2 {
        let builder = Client::builder().info(Implementation::new("gemini-host", "1"));
        let client = tracksuit::host::connect_in_memory(server.clone(), builder)
            .await
            .expect("connect");
        seen.push(client.list_tools(None).await.expect("tools/list").tools);
    }
    assert_eq!(seen[0], seen[1]);
    // The registered descriptor stays the portable one.
    let registered = server.tool_descriptor("read").expect("read");
    assert_eq!(registered.input_schema["required"], json!(["path"]));
}

/// The `__schema__` tool's input schema a client named `name` is given by `ask`.
async fn schema_tool(name: &str, era: Era) -> (Value, String) {
    let seen = Arc::new(Mutex::new(Value::Null));
    let keep = seen.clone();
    let builder = Client::builder()
        .era(era)
        .info(Implementation::new(name, "1.0"))
        .on_sampling(move |params| {
            let keep = keep.clone();
            async move {
                let tools = params.tools.unwrap_or_default();
                *keep.lock().expect("lock") = Value::Object(tools[0].input_schema.clone());
                let answer = json!({"inner": null, "word": "hi"});
                Ok(CreateMessageResult::schema_answer(answer, "m"))
            }
        });
    let client = tracksuit::host::connect_in_memory(server(), builder)
        .await
        .expect("connect");
    let result = client.call_tool("ask", json!({})).await.expect("ask");
    let text = result.content[0].as_text().unwrap_or_default().to_owned();
    let schema = seen.lock().expect("lock").clone();
    (schema, text)
}

#[tokio::test]
async fn sample_schema_is_portable_and_in_the_profile_of_the_client_asked() {
    for era in [Era::Session, Era::Stateless] {
        let (portable, text) = schema_tool("claude-code", era).await;
        assert_eq!(text, "portable hi", "{era:?}");
        assert!(portable.get("$defs").is_none(), "{portable}");
        assert!(!portable.to_string().contains("$ref"), "{portable}");
        assert_eq!(
            portable["properties"]["inner"]["type"], "object",
            "{portable}"
        );
        assert_eq!(portable["required"], json!(["word"]));

        // An explicit null for an `Option` is still accepted from a strict client's model.
        let (strict, text) = schema_tool("openai-agent", era).await;
        assert_eq!(text, "openai-strict hi", "{era:?}");
        assert_eq!(strict["required"], json!(["inner", "word"]));
        assert_eq!(strict["properties"]["inner"]["additionalProperties"], false);

        let (gemini, _) = schema_tool("gemini-host", era).await;
        assert_eq!(
            gemini["properties"]["inner"]["nullable"],
            json!(null),
            "{gemini}"
        );
        assert!(gemini.get("$schema").is_none(), "{gemini}");

        let (raw, _) = schema_tool("raw-host", era).await;
        assert!(raw.get("$defs").is_some(), "{raw}");
    }
}

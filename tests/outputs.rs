//! Structured output that is not an object (`Json<Vec<T>>`, `Json<u64>`, an enum) and input
//! that is not an object (a `#[params]` enum), in both eras: wrapped in `{"result": ...}` /
//! `{"input": ...}`, with schemas that say so, and calls that succeed.

use serde_json::{Value, json};
use tracksuit::client::{Client, Era};
use tracksuit::{Json, Server, mcp_tool};
use tracksuit_tests::support::connect;

/// The squares below `n`.
#[mcp_tool]
async fn squares(n: u64) -> Json<Vec<u64>> {
    Json((0..n).map(|i| i * i).collect())
}

/// A count.
#[mcp_tool]
async fn count() -> Json<u64> {
    Json(42)
}

/// A shape, tagged.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle.
    Circle { r: f64 },
    /// A square.
    Square { side: f64 },
}

/// The area of a shape, and the shape back.
#[mcp_tool]
async fn area(#[params] shape: Shape) -> Json<(f64, Shape)> {
    let a = match &shape {
        Shape::Circle { r } => std::f64::consts::PI * r * r,
        Shape::Square { side } => side * side,
    };
    Json((a, shape))
}

/// Echoes an optional limit.
#[mcp_tool]
async fn echo_limit(limit: Option<u32>) -> String {
    format!("{limit:?}")
}

fn server() -> Server {
    Server::new(tracksuit::crate_info!())
        .tool(squares)
        .tool(count)
        .tool(area)
        .tool(echo_limit)
}

async fn check_era(era: Era) {
    let client = connect(server(), Client::builder().era(era)).await;
    let tools = client.list_tools(None).await.expect("tools/list").tools;
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        if let Some(out) = &tool.output_schema {
            assert_eq!(out["type"], "object", "{}", tool.name);
        }
    }
    let squares_tool = tools.iter().find(|t| t.name == "squares").expect("listed");
    let out = squares_tool
        .output_schema
        .as_ref()
        .expect("an outputSchema");
    assert_eq!(out["properties"]["result"]["type"], "array");
    assert_eq!(out["required"], json!(["result"]));

    let r = client
        .call_tool("squares", json!({"n": 4}))
        .await
        .expect("call");
    assert_eq!(r.is_error, None, "{r:?}");
    assert_eq!(
        Value::Object(r.structured_content.clone().expect("structured")),
        json!({"result": [0, 1, 4, 9]})
    );
    assert_eq!(r.content[0].as_text(), Some("[0,1,4,9]"));

    let r = client.call_tool("count", json!({})).await.expect("call");
    assert_eq!(r.is_error, None, "{r:?}");
    assert_eq!(r.structured_content.expect("structured")["result"], 42);

    let area_tool = tools.iter().find(|t| t.name == "area").expect("listed");
    assert_eq!(area_tool.input_schema["required"], json!(["input"]));
    assert!(area_tool.input_schema.get("oneOf").is_none());
    let r = client
        .call_tool("area", json!({"input": {"kind": "square", "side": 3.0}}))
        .await
        .expect("call");
    assert_eq!(r.is_error, None, "{r:?}");
    assert_eq!(
        r.structured_content.expect("structured")["result"],
        json!([9.0, {"kind": "square", "side": 3.0}])
    );
    // The bare enum (not wrapped) is refused with a message naming the wrapper.
    let r = client
        .call_tool("area", json!({"kind": "square", "side": 3.0}))
        .await
        .expect("call");
    assert_eq!(r.is_error, Some(true));
    assert!(
        r.content[0].as_text().unwrap_or("").contains("`input`"),
        "{r:?}"
    );

    let limit_tool = tools
        .iter()
        .find(|t| t.name == "echo_limit")
        .expect("listed");
    assert_eq!(
        limit_tool.input_schema["properties"]["limit"]["type"],
        "integer"
    );
    for (args, expected) in [
        (json!({}), "None"),
        (json!({"limit": null}), "None"),
        (json!({"limit": 3}), "Some(3)"),
    ] {
        let r = client.call_tool("echo_limit", args).await.expect("call");
        assert_eq!(r.is_error, None, "{r:?}");
        assert_eq!(r.content[0].as_text(), Some(expected));
    }
}

#[tokio::test]
async fn non_object_outputs_and_inputs_work_in_the_2025_era() {
    check_era(Era::Session).await;
}

#[tokio::test]
async fn non_object_outputs_and_inputs_work_in_the_2026_era() {
    check_era(Era::Stateless).await;
}

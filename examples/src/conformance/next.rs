//! Fixtures of the conformance suite's next release, from its open pull requests:
//! `test_tool_slow` / `test_tool_fast` (`cancellation`, `progress-notifications`,
//! conformance#450) and the scope-challenge instance (`sep-2350-server-scope-challenge`,
//! conformance#481): the suite's four operations, each requiring its own pair of scopes,
//! behind the fixed opaque tokens `mcp-conformance-scope-low` / `-full`.

use futures::future::BoxFuture;
use serde_json::json;
use std::time::Duration;
use tracksuit::host::http::auth::{ResourceServer, TokenError, TokenValidator};
use tracksuit::{Ctx, Principal, mcp_prompt, mcp_resource, mcp_tool};

/// How long `test_tool_slow` sleeps when not told.
const SLOW_DEFAULT_MS: u64 = 5000;

/// `test_tool_slow`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct Slow {
    /// How long to sleep, in milliseconds (default 5000)
    #[serde(rename = "durationMs")]
    duration_ms: Option<f64>,
}

/// Sleeps for `durationMs` (default 5000) before returning; stops early when cancelled.
#[mcp_tool]
pub(super) async fn test_tool_slow(ctx: &Ctx, #[params] slow: Slow) -> String {
    let ms = slow
        .duration_ms
        .map_or(SLOW_DEFAULT_MS, |ms| ms.clamp(0.0, 600_000.0) as u64);
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(ms)) => format!("Slept for {ms}ms"),
        _ = ctx.cancelled() => "cancelled".into(),
    }
}

/// Returns at once.
#[mcp_tool]
pub(super) async fn test_tool_fast() -> &'static str {
    "fast"
}

/// The scope every fixture token grants.
const BASELINE: &str = "mcp:conformance:baseline";

/// The scopes `mcp-conformance-scope-full` grants (the union of the four operations').
const FULL: &[&str] = &[
    BASELINE,
    "mcp:conformance:tools:call",
    "mcp:conformance:tools:test_simple_text",
    "mcp:conformance:resources:read",
    "mcp:conformance:resources:static",
    "mcp:conformance:resources:template:123",
    "mcp:conformance:prompts:get",
    "mcp:conformance:prompts:test_simple_prompt",
];

/// The suite's two fixed opaque tokens.
struct FixtureTokens;

impl TokenValidator for FixtureTokens {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(async move {
            match token {
                "mcp-conformance-scope-low" => Ok(Principal::new("low").with_scopes([BASELINE])),
                "mcp-conformance-scope-full" => {
                    Ok(Principal::new("full").with_scopes(FULL.iter().copied()))
                }
                _ => Err(TokenError::Invalid(
                    "not a conformance fixture token".into(),
                )),
            }
        })
    }
}

/// The resource server of the scope-challenge instance at `resource` (the URL the suite is
/// given, so that `resource_metadata` has its origin).
pub(super) fn resource_server(resource: &str) -> ResourceServer {
    ResourceServer::new(resource, FixtureTokens)
        .authorization_server("https://auth.conformance.invalid")
        .scopes_supported(FULL.iter().copied())
}

/// Returns a simple text response (scoped).
#[mcp_tool(
    name = "test_simple_text",
    scopes = ["mcp:conformance:tools:call", "mcp:conformance:tools:test_simple_text"]
)]
pub(super) async fn scoped_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// A static text resource (scoped)
#[mcp_resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain",
    scopes = ["mcp:conformance:resources:read", "mcp:conformance:resources:static"]
)]
pub(super) async fn scoped_static_text() -> String {
    "This is the content of the static text resource.".into()
}

/// A resource template with an id variable (its scope names the id)
#[mcp_resource(
    uri = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json",
    scopes = ["mcp:conformance:resources:read", "mcp:conformance:resources:template:{id}"]
)]
pub(super) async fn scoped_template_data(id: String) -> String {
    json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string()
}

/// A simple prompt without arguments (scoped)
#[mcp_prompt(
    name = "test_simple_prompt",
    scopes = ["mcp:conformance:prompts:get", "mcp:conformance:prompts:test_simple_prompt"]
)]
pub(super) async fn scoped_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

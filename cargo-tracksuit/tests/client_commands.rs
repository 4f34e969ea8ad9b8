//! `list`, `call` and `inspect` against the conformance example server: over stdio (the
//! built binary as a child) and over Streamable HTTP (served in process), in both eras.

mod support;

use serde_json::Value;
use support::{conformance, json, ok, run};
use tracksuit_examples::conformance::{self as fixtures, Fixtures};

fn names(list: &Value, member: &str, key: &str) -> Vec<String> {
    list[member]
        .as_array()
        .unwrap_or_else(|| panic!("no {member} in {list}"))
        .iter()
        .filter_map(|item| item[key].as_str().map(str::to_owned))
        .collect()
}

fn tool<'a>(inspection: &'a Value, name: &str) -> &'a Value {
    inspection["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[tokio::test]
async fn list_and_call_over_stdio_in_both_eras() {
    let server = conformance().to_str().expect("a UTF-8 path");
    for (era, shown) in [
        ("session", "session (2025-11-25)"),
        ("stateless", "stateless (2026-07-28)"),
        ("negotiate", "stateless (2026-07-28)"),
    ] {
        let listed = json(&["list", "--json", "--era", era, "--", server, "--stdio"]).await;
        assert!(names(&listed, "tools", "name").contains(&"test_simple_text".to_owned()));
        assert!(names(&listed, "prompts", "name").contains(&"test_simple_prompt".to_owned()));
        assert!(names(&listed, "resources", "uri").contains(&"test://static-text".to_owned()));
        assert!(!names(&listed, "resourceTemplates", "uriTemplate").is_empty());
        // Only what was asked for.
        let tools = json(&[
            "list", "tools", "--json", "--era", era, "--", server, "--stdio",
        ])
        .await;
        assert_eq!(tools.as_object().map(|o| o.len()), Some(1), "{era}");

        let text = ok(&["list", "--era", era, "--", server, "--stdio"]).await;
        assert!(text.starts_with("tracksuit-conformance 0.1.0, "), "{text}");
        assert!(
            text.lines().next().unwrap_or_default().ends_with(shown),
            "{era}: {text}"
        );
        assert!(text.contains("\n  test_simple_text — "), "{text}");

        let answer = ok(&[
            "call",
            "test_simple_text",
            "--era",
            era,
            "--",
            server,
            "--stdio",
        ])
        .await;
        assert_eq!(answer, "This is a simple text response for testing.\n");
        let args = r#"{"durationMs": 1}"#;
        let whole = json(&[
            "call",
            "test_tool_slow",
            "--args",
            args,
            "--json",
            "--era",
            era,
            "--",
            server,
            "--stdio",
        ])
        .await;
        assert!(whole["content"].is_array(), "{whole}");

        // A tool error is exit status 1, its text still printed.
        let failed = run(&[
            "call",
            "test_error_handling",
            "--era",
            era,
            "--",
            server,
            "--stdio",
        ])
        .await;
        assert_eq!(failed.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&failed.stdout).contains("intentionally"));
    }
}

#[tokio::test]
async fn bad_input_is_an_error_message_not_a_panic() {
    let server = conformance().to_str().expect("a UTF-8 path");
    for args in [
        &[
            "call",
            "test_simple_text",
            "--args",
            "{not json",
            "--",
            server,
            "--stdio",
        ][..],
        &[
            "call",
            "test_simple_text",
            "--args",
            "[1]",
            "--",
            server,
            "--stdio",
        ],
        &["call", "no_such_tool", "--", server, "--stdio"],
        &["list"],
        &["list", "--url", "http://127.0.0.1:9/mcp", "--", server],
        &["list", "--", "/nonexistent/server"],
        &["list", "--url", "not a url"],
    ] {
        let out = run(args).await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("cargo tracksuit: "),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `test_tool_slow` has one optional number: each profile shows it its own way.
fn assert_profiles(by_profile: &[(&str, Value)]) {
    for (profile, inspection) in by_profile {
        let schema = &tool(inspection, "test_tool_slow")["inputSchema"];
        let duration = &schema["properties"]["durationMs"];
        match *profile {
            "portable" => {
                assert_eq!(duration["type"], "number");
                assert!(schema.get("required").is_none());
            }
            "openai-strict" => {
                assert_eq!(duration["type"], serde_json::json!(["number", "null"]));
                assert_eq!(schema["required"], serde_json::json!(["durationMs"]));
                assert_eq!(schema["additionalProperties"], false);
            }
            "gemini-safe" => {
                assert_eq!(duration["type"], "number");
                assert!(schema.get("$schema").is_none(), "{schema}");
            }
            _ => unreachable!(),
        }
        let strict = &tool(inspection, "json_schema_2020_12_tool")["inputSchema"];
        assert_eq!(
            strict.get("$defs").is_some(),
            *profile == "portable",
            "{profile}: {strict}"
        );
    }
}

#[tokio::test]
async fn inspect_shows_every_item_with_its_schema_per_profile_over_stdio() {
    let server = conformance().to_str().expect("a UTF-8 path");
    let mut by_profile = Vec::new();
    for profile in ["portable", "openai-strict", "gemini-safe"] {
        let inspection = json(&[
            "inspect",
            "--json",
            "--profile",
            profile,
            "--",
            server,
            "--stdio",
        ])
        .await;
        assert_eq!(inspection["profile"], profile);
        assert_eq!(inspection["server"]["name"], "tracksuit-conformance");
        for member in ["tools", "prompts", "resources", "resourceTemplates"] {
            assert!(
                !inspection[member].as_array().is_none_or(Vec::is_empty),
                "{member}"
            );
        }
        by_profile.push((profile, inspection));
    }
    assert_profiles(&by_profile);
    // The raw profile: as derived (a nullable optional), nothing required.
    let raw = json(&[
        "inspect",
        "--json",
        "--profile",
        "raw",
        "--",
        server,
        "--stdio",
    ])
    .await;
    let schema = &tool(&raw, "test_tool_slow")["inputSchema"];
    assert_eq!(
        schema["properties"]["durationMs"]["type"],
        serde_json::json!(["number", "null"])
    );
    assert!(schema.get("required").is_none());
    // The text form names each item and prints its schema.
    let text = ok(&["inspect", "--era", "session", "--", server, "--stdio"]).await;
    assert!(text.contains("== tools ("), "{text}");
    assert!(text.contains("\ntest_tool_slow — "), "{text}");
    assert!(text.contains("inputSchema: {"), "{text}");
    assert!(text.contains("== resourceTemplates ("), "{text}");
}

/// The conformance server's scope-challenge instance on a loopback port: every request
/// needs `Authorization: Bearer mcp-conformance-scope-full` (or `-low`).
async fn serve_with_tokens() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let fixtures = Fixtures {
        scope_challenge: Some(url.clone()),
    };
    let server = fixtures::server(&fixtures).and_then(|s| s.build().map_err(std::io::Error::other));
    let server = server.expect("the conformance server builds");
    let options = fixtures::http_options(&fixtures, false);
    let router = tracksuit::host::http::StreamableHttp::new(server, options).router("/mcp");
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn list_call_and_inspect_over_http_with_an_authorization_header_in_both_eras() {
    let url = serve_with_tokens().await;
    let header = "Authorization: Bearer mcp-conformance-scope-full";
    // No token: refused, and said so.
    let refused = run(&["list", "--url", &url]).await;
    assert_eq!(refused.status.code(), Some(1));
    for era in ["session", "stateless"] {
        let listed = json(&[
            "list", "--json", "--era", era, "--url", &url, "--header", header,
        ])
        .await;
        assert!(
            names(&listed, "tools", "name").contains(&"test_simple_text".to_owned()),
            "{era}"
        );
        let answer = ok(&[
            "call",
            "test_simple_text",
            "--era",
            era,
            "--url",
            &url,
            "--header",
            header,
        ])
        .await;
        assert_eq!(
            answer, "This is a simple text response for testing.\n",
            "{era}"
        );
    }
    // Over a URL the profile is applied here, to what the server published.
    let mut by_profile = Vec::new();
    for profile in ["portable", "openai-strict", "gemini-safe"] {
        let args = [
            "inspect",
            "--json",
            "--profile",
            profile,
            "--url",
            &url,
            "--header",
            header,
        ];
        by_profile.push((profile, json(&args).await));
    }
    assert_profiles(&by_profile);
}

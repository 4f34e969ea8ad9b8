//! Both samplers over real HTTP on loopback: the path, the headers each provider documents
//! (`Authorization: Bearer`; `x-api-key` + `anthropic-version`), the body, and an error
//! status turned into a JSON-RPC error. The endpoint is a small axum app answering with the
//! providers' documented shapes (the real-model run is tests/interop/model/run.sh).

use axum::Json;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tracksuit::protocol::{CreateMessageRequestParams, ErrorObject, SamplingMessage};
use tracksuit_providers::{Anthropic, OpenAi, Sampler};

type Seen = Arc<Mutex<Vec<(String, HeaderMap, Value)>>>;

async fn endpoint() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let (a, b, c) = (seen.clone(), seen.clone(), seen.clone());
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            post(move |h: HeaderMap, Json(body): Json<Value>| async move {
                a.lock().unwrap().push(("openai".into(), h, body));
                Json(json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "pong"}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
                }))
            }),
        )
        .route(
            "/v1/messages",
            post(move |h: HeaderMap, Json(body): Json<Value>| async move {
                b.lock().unwrap().push(("anthropic".into(), h, body));
                Json(json!({
                    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                    "content": [{"type": "text", "text": "pong"}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 3, "output_tokens": 1}
                }))
            }),
        )
        .route(
            "/broken/chat/completions",
            post(move |h: HeaderMap, Json(body): Json<Value>| async move {
                c.lock().unwrap().push(("broken".into(), h, body));
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    Json(json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}})),
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

fn ping() -> CreateMessageRequestParams {
    CreateMessageRequestParams {
        messages: vec![SamplingMessage::user_text("ping")],
        max_tokens: 5,
        ..Default::default()
    }
}

#[tokio::test]
async fn both_providers_post_with_their_documented_headers() {
    let (base, seen) = endpoint().await;
    let openai = OpenAi::builder()
        .base_url(format!("{base}/v1/"))
        .api_key("sk-test")
        .model("gpt-test")
        .build()
        .unwrap();
    let r = openai.sample(ping()).await.unwrap();
    assert_eq!(
        r.content.iter().next().and_then(|c| c.as_text()),
        Some("pong")
    );
    assert_eq!(r.model, "gpt-test");
    let anthropic = Anthropic::builder()
        .base_url(&base)
        .api_key("sk-ant-test")
        .model("claude-test")
        .build()
        .unwrap();
    let r = anthropic.sample(ping()).await.unwrap();
    assert_eq!(
        r.extra["usage"],
        json!({"inputTokens": 3, "outputTokens": 1})
    );
    let seen = seen.lock().unwrap();
    let (_, h, body) = &seen[0];
    assert_eq!(h["authorization"], "Bearer sk-test");
    assert_eq!(h["content-type"], "application/json");
    assert_eq!(body["messages"][0]["content"], "ping");
    let (_, h, body) = &seen[1];
    assert_eq!(h["x-api-key"], "sk-ant-test");
    assert_eq!(h["anthropic-version"], "2023-06-01");
    assert!(h.get("authorization").is_none());
    assert_eq!(body["max_tokens"], 5);
}

#[tokio::test]
async fn an_error_status_becomes_a_json_rpc_error_through_the_handler() {
    let (base, _seen) = endpoint().await;
    let broken = OpenAi::builder()
        .base_url(format!("{base}/broken"))
        .model("m")
        .build()
        .unwrap();
    let answer = tracksuit_providers::handler(broken)(ping()).await;
    let err: ErrorObject = answer.unwrap_err();
    assert_eq!(err.code, -32603);
    assert!(
        err.message.contains("429") && err.message.contains("Rate limit reached"),
        "{}",
        err.message
    );
}

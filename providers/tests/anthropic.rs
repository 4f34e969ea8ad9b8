//! The Messages API conversion, both ways, pinned to the JSON shapes Anthropic documents
//! (API reference "Messages", the tool-use guide's `get_weather` example) and to SEP-1577's
//! worked example (seed 001): tool definitions, `tool_choice`, `tool_use` / `tool_result`
//! blocks, base64 images, stop reasons and usage.

use serde_json::{Value, json};
use tracksuit::protocol::{CreateMessageRequestParams, ErrorObject, StopReason};
use tracksuit_providers::{Anthropic, ProviderError};

fn params(v: Value) -> CreateMessageRequestParams {
    serde_json::from_value(v).expect("valid MCP params")
}

fn sampler() -> Anthropic {
    Anthropic::builder()
        .model("claude-sonnet-4-5")
        .build()
        .unwrap()
}

fn weather_tool() -> Value {
    json!({
        "name": "get_weather",
        "description": "Get the current weather in a given location",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": { "type": "string" },
                "units": { "type": "string", "enum": ["celsius", "fahrenheit"] }
            },
            "required": ["city"]
        }
    })
}

#[test]
fn the_sep_1577_conversation_becomes_a_messages_request() {
    let p = params(json!({
        "systemPrompt": "You are a weather bot.",
        "messages": [
            { "role": "user", "content": { "type": "text", "text": "What's the weather in SF?" } },
            { "role": "assistant", "content": { "type": "tool_use", "id": "toolu_01A2B3C4D5", "name": "get_weather", "input": { "city": "San Francisco", "units": "celsius" } } },
            { "role": "user", "content": { "type": "tool_result", "toolUseId": "toolu_01A2B3C4D5",
                "content": [{ "type": "text", "text": "18°C, partly cloudy" }] } }
        ],
        "maxTokens": 1000,
        "temperature": 0.5,
        "stopSequences": ["END"],
        "metadata": { "user_id": "u-42", "other": 1 },
        "tools": [weather_tool()],
        "toolChoice": { "mode": "auto" }
    }));
    assert_eq!(
        sampler().request_body(&p).unwrap(),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1000,
            "messages": [
                { "role": "user", "content": [{ "type": "text", "text": "What's the weather in SF?" }] },
                { "role": "assistant", "content": [{ "type": "tool_use", "id": "toolu_01A2B3C4D5", "name": "get_weather", "input": { "city": "San Francisco", "units": "celsius" } }] },
                { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "toolu_01A2B3C4D5", "content": [{ "type": "text", "text": "18°C, partly cloudy" }] }] }
            ],
            "system": "You are a weather bot.",
            "temperature": 0.5,
            "stop_sequences": ["END"],
            "metadata": { "user_id": "u-42" },
            "tools": [{
                "name": "get_weather",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "city": { "type": "string" },
                        "units": { "type": "string", "enum": ["celsius", "fahrenheit"] }
                    },
                    "required": ["city"]
                },
                "description": "Get the current weather in a given location"
            }],
            "tool_choice": { "type": "auto" }
        })
    );
}

#[test]
fn tool_choice_modes_parallel_control_images_and_errors() {
    let with = |mode: &str| {
        params(
            json!({"messages": [], "maxTokens": 5, "tools": [weather_tool()], "toolChoice": {"mode": mode}}),
        )
    };
    assert_eq!(
        sampler().request_body(&with("required")).unwrap()["tool_choice"],
        json!({"type": "any"})
    );
    assert_eq!(
        sampler().request_body(&with("none")).unwrap()["tool_choice"],
        json!({"type": "none"})
    );
    let serial = Anthropic::builder()
        .model("m")
        .parallel_tool_use(false)
        .build()
        .unwrap();
    assert_eq!(
        serial.request_body(&with("required")).unwrap()["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
    let p = params(json!({
        "messages": [
            { "role": "user", "content": [
                { "type": "image", "data": "/9j/4AAQSkZJRg==", "mimeType": "image/jpeg" },
                { "type": "text", "text": "Describe this image." }
            ]},
            { "role": "assistant", "content": { "type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {} } },
            { "role": "user", "content": { "type": "tool_result", "toolUseId": "toolu_1", "content": [], "structuredContent": {"error": "city is required"}, "isError": true } }
        ],
        "maxTokens": 5
    }));
    let body = sampler().request_body(&p).unwrap();
    assert_eq!(
        body["messages"][0]["content"][0],
        json!({ "type": "image", "source": { "type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQSkZJRg==" } })
    );
    assert_eq!(
        body["messages"][2]["content"][0],
        json!({ "type": "tool_result", "tool_use_id": "toolu_1", "content": [{ "type": "text", "text": "{\"error\":\"city is required\"}" }], "is_error": true })
    );
    let audio = params(
        json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}], "maxTokens": 5}),
    );
    let err = sampler().request_body(&audio).unwrap_err();
    assert!(matches!(err, ProviderError::Unsupported(_)));
    assert_eq!(ErrorObject::from(err).code, -32602);
}

#[test]
fn the_schema_tool_is_forced() {
    let p = params(json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Plan two days in Oslo" } }],
        "maxTokens": 200,
        "tools": [{ "name": "__schema__", "description": "Respond with structured data matching this schema.",
                    "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] } }],
        "toolChoice": { "mode": "required" }
    }));
    let body = sampler().request_body(&p).unwrap();
    assert_eq!(
        body["tool_choice"],
        json!({ "type": "tool", "name": "__schema__", "disable_parallel_tool_use": true })
    );
    assert_eq!(body["tools"][0]["name"], "__schema__");
    let answer = json!({
        "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{ "type": "tool_use", "id": "toolu_01D7FLrfh4GYq7yT1ULFeyMV", "name": "__schema__", "input": { "city": "Oslo" } }],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": { "input_tokens": 472, "output_tokens": 19 }
    });
    let r = sampler().parse_response(answer).unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({
            "role": "assistant",
            "content": { "type": "tool_use", "id": "toolu_01D7FLrfh4GYq7yT1ULFeyMV", "name": "__schema__", "input": { "city": "Oslo" } },
            "model": "claude-sonnet-4-5",
            "stopReason": "toolUse",
            "usage": { "inputTokens": 472, "outputTokens": 19 }
        })
    );
}

#[test]
fn answers_with_text_thinking_and_parallel_tool_use_map_back() {
    // The tool-use guide's answer: text, then tool_use; a thinking block has no MCP form.
    let answer = json!({
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            { "type": "thinking", "thinking": "Two cities.", "signature": "sig" },
            { "type": "text", "text": "I'll check both cities." },
            { "type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": { "city": "San Francisco" } },
            { "type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": { "city": "New York" } }
        ],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": { "input_tokens": 2095, "output_tokens": 503 }
    });
    let r = sampler().parse_response(answer).unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"],
        json!([
            { "type": "text", "text": "I'll check both cities." },
            { "type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": { "city": "San Francisco" } },
            { "type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": { "city": "New York" } }
        ])
    );
    let stop = |reason: &str| {
        sampler()
            .parse_response(json!({"model": "m", "content": [{"type": "text", "text": "x"}], "stop_reason": reason}))
            .unwrap()
            .stop_reason
    };
    assert_eq!(stop("end_turn"), Some(StopReason::EndTurn));
    assert_eq!(stop("max_tokens"), Some(StopReason::MaxTokens));
    assert_eq!(stop("stop_sequence"), Some(StopReason::StopSequence));
    assert_eq!(stop("tool_use"), Some(StopReason::ToolUse));
    assert_eq!(stop("refusal"), Some(StopReason::Refusal));
    assert_eq!(
        stop("pause_turn"),
        Some(StopReason::Other("pause_turn".into()))
    );
    for bad in [
        json!({}),
        json!({"content": [{"type": "tool_use", "id": "x", "name": "y", "input": 3}]}),
        json!({"content": [{"type": "tool_use", "input": {}}]}),
    ] {
        assert!(matches!(
            sampler().parse_response(bad),
            Err(ProviderError::Decode(_))
        ));
    }
}

//! The Chat Completions conversion, both ways, pinned to the JSON shapes OpenAI documents
//! (API reference "Create chat completion" and the function-calling / structured-outputs
//! guides): the `get_weather` examples, parallel tool calls, `tool` messages,
//! `response_format: json_schema`, finish reasons and usage.

use serde_json::{Value, json};
use tracksuit::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ErrorObject, StopReason,
};
use tracksuit_providers::{OpenAi, ProviderError, ToolMode};

fn params(v: Value) -> CreateMessageRequestParams {
    serde_json::from_value(v).expect("valid MCP params")
}

fn mcp(r: &CreateMessageResult) -> Value {
    serde_json::to_value(r).expect("serialisable")
}

fn native() -> OpenAi {
    OpenAi::builder().model("gpt-4.1").build().unwrap()
}

fn choice() -> OpenAi {
    OpenAi::builder()
        .model("local")
        .tool_mode(ToolMode::JsonChoice)
        .build()
        .unwrap()
}

fn weather_tool() -> Value {
    json!({
        "name": "get_weather",
        "description": "Get current temperature for a given location.",
        "inputSchema": {
            "type": "object",
            "properties": { "location": { "type": "string", "description": "City and country e.g. Bogotá, Colombia" } },
            "required": ["location"]
        }
    })
}

#[test]
fn a_request_with_system_image_tools_and_required_choice() {
    let p = params(json!({
        "systemPrompt": "You are a helpful assistant.",
        "messages": [
            { "role": "user", "content": [
                { "type": "text", "text": "What's in this image, and the weather there?" },
                { "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" }
            ]}
        ],
        "maxTokens": 100,
        "temperature": 0.2,
        "stopSequences": ["\n\n"],
        "tools": [weather_tool()],
        "toolChoice": { "mode": "required" }
    }));
    let body = OpenAi::builder()
        .model("gpt-4.1")
        .parallel_tool_calls(false)
        .build()
        .unwrap()
        .request_body(&p)
        .unwrap();
    assert_eq!(
        body,
        json!({
            "model": "gpt-4.1",
            "messages": [
                { "role": "system", "content": "You are a helpful assistant." },
                { "role": "user", "content": [
                    { "type": "text", "text": "What's in this image, and the weather there?" },
                    { "type": "image_url", "image_url": { "url": "data:image/png;base64,iVBORw0KGgo=" } }
                ]}
            ],
            "max_tokens": 100,
            "temperature": 0.2,
            "stop": ["\n\n"],
            "tools": [{
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": { "location": { "type": "string", "description": "City and country e.g. Bogotá, Colombia" } },
                        "required": ["location"]
                    },
                    "description": "Get current temperature for a given location."
                }
            }],
            "tool_choice": "required",
            "parallel_tool_calls": false
        })
    );
    let auto = native()
        .request_body(&params(
            json!({"messages": [], "maxTokens": 5, "tools": [weather_tool()]}),
        ))
        .unwrap();
    assert_eq!(auto["tool_choice"], "auto");
    assert!(auto.get("parallel_tool_calls").is_none());
    let none = native()
        .request_body(&params(json!({"messages": [], "maxTokens": 5, "tools": [weather_tool()], "toolChoice": {"mode": "none"}})))
        .unwrap();
    assert_eq!(none["tool_choice"], "none");
    let reasoning = OpenAi::builder()
        .model("o3")
        .max_completion_tokens(true)
        .build()
        .unwrap();
    let body = reasoning
        .request_body(&params(json!({"messages": [], "maxTokens": 7})))
        .unwrap();
    assert_eq!(
        (body.get("max_tokens"), &body["max_completion_tokens"]),
        (None, &json!(7))
    );
}

#[test]
fn history_with_parallel_calls_and_results_becomes_tool_calls_and_tool_messages() {
    let p = params(json!({
        "messages": [
            { "role": "user", "content": { "type": "text", "text": "Weather in Paris and Bogotá?" } },
            { "role": "assistant", "content": [
                { "type": "text", "text": "Checking both." },
                { "type": "tool_use", "id": "call_12345xyz", "name": "get_weather", "input": { "location": "Paris, France" } },
                { "type": "tool_use", "id": "call_67890abc", "name": "get_weather", "input": { "location": "Bogotá, Colombia" } }
            ]},
            { "role": "user", "content": [
                { "type": "tool_result", "toolUseId": "call_12345xyz", "content": [{ "type": "text", "text": "14°C" }] },
                { "type": "tool_result", "toolUseId": "call_67890abc", "content": [], "structuredContent": { "celsius": 18 }, "isError": false },
                { "type": "text", "text": "Which is warmer?" }
            ]},
            { "role": "assistant", "content": { "type": "tool_use", "id": "call_err", "name": "get_weather", "input": {} } },
            { "role": "user", "content": { "type": "tool_result", "toolUseId": "call_err", "content": [{ "type": "text", "text": "location is required" }], "isError": true } }
        ],
        "maxTokens": 50,
        "tools": [weather_tool()]
    }));
    let body = native().request_body(&p).unwrap();
    assert_eq!(
        body["messages"],
        json!([
            { "role": "user", "content": "Weather in Paris and Bogotá?" },
            { "role": "assistant", "content": "Checking both.", "tool_calls": [
                { "id": "call_12345xyz", "type": "function", "function": { "name": "get_weather", "arguments": "{\"location\":\"Paris, France\"}" } },
                { "id": "call_67890abc", "type": "function", "function": { "name": "get_weather", "arguments": "{\"location\":\"Bogotá, Colombia\"}" } }
            ]},
            { "role": "tool", "tool_call_id": "call_12345xyz", "content": "14°C" },
            { "role": "tool", "tool_call_id": "call_67890abc", "content": "{\"celsius\":18}" },
            { "role": "user", "content": "Which is warmer?" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "call_err", "type": "function", "function": { "name": "get_weather", "arguments": "{}" } }
            ]},
            { "role": "tool", "tool_call_id": "call_err", "content": "Error: location is required" }
        ])
    );
}

#[test]
fn parallel_tool_calls_in_the_answer_become_tool_use_blocks() {
    // The documented answer shape: content null, tool_calls with JSON-text arguments.
    let answer = json!({
        "id": "chatcmpl-abc123",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [
                    { "id": "call_12345xyz", "type": "function", "function": { "name": "get_weather", "arguments": "{\"location\":\"Paris, France\"}" } },
                    { "id": "call_67890abc", "type": "function", "function": { "name": "get_weather", "arguments": "{\"location\":\"Bogotá, Colombia\"}" } }
                ],
                "refusal": null,
                "annotations": []
            },
            "logprobs": null,
            "finish_reason": "tool_calls"
        }],
        "usage": { "prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99 }
    });
    let p = params(json!({"messages": [], "maxTokens": 50, "tools": [weather_tool()]}));
    let r = native().parse_response(&p, answer).unwrap();
    assert_eq!(
        mcp(&r),
        json!({
            "role": "assistant",
            "content": [
                { "type": "tool_use", "id": "call_12345xyz", "name": "get_weather", "input": { "location": "Paris, France" } },
                { "type": "tool_use", "id": "call_67890abc", "name": "get_weather", "input": { "location": "Bogotá, Colombia" } }
            ],
            "model": "gpt-4.1-2025-04-14",
            "stopReason": "toolUse",
            "usage": { "inputTokens": 82, "outputTokens": 17 }
        })
    );
}

#[test]
fn finish_reasons_and_refusals_map_to_stop_reasons() {
    let p = params(json!({"messages": [], "maxTokens": 5}));
    let answer = |finish: &str, message: Value| json!({"id": "x", "model": "m", "choices": [{"index": 0, "finish_reason": finish, "message": message}]});
    let text = json!({"role": "assistant", "content": "Hello there"});
    let cases = [
        ("stop", StopReason::EndTurn),
        ("length", StopReason::MaxTokens),
        ("content_filter", StopReason::Refusal),
        ("tool_calls", StopReason::ToolUse),
        ("something_new", StopReason::Other("something_new".into())),
    ];
    for (finish, expected) in cases {
        let r = native()
            .parse_response(&p, answer(finish, text.clone()))
            .unwrap();
        assert_eq!(r.stop_reason, Some(expected), "{finish}");
        assert_eq!(
            r.content.iter().next().and_then(|c| c.as_text()),
            Some("Hello there")
        );
        assert!(r.extra.get("usage").is_none());
    }
    let refused = native()
        .parse_response(
            &p,
            answer("stop", json!({"role": "assistant", "content": null, "refusal": "I'm sorry, I cannot help with that."})),
        )
        .unwrap();
    assert_eq!(refused.stop_reason, Some(StopReason::Refusal));
    assert_eq!(
        refused.content.iter().next().and_then(|c| c.as_text()),
        Some("I'm sorry, I cannot help with that.")
    );
}

#[test]
fn the_schema_tool_becomes_response_format_and_comes_back_as_tool_use() {
    let p = params(json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Your move" } }],
        "maxTokens": 40,
        "tools": [{
            "name": "__schema__",
            "description": "Respond with structured data matching this schema.",
            "inputSchema": { "type": "object", "properties": { "row": { "type": "integer", "minimum": 0, "maximum": 2 } }, "required": ["row"] }
        }],
        "toolChoice": { "mode": "required" }
    }));
    for sampler in [native(), choice()] {
        let body = sampler.request_body(&p).unwrap();
        assert_eq!(
            body["response_format"],
            json!({
                "type": "json_schema",
                "json_schema": {
                    "name": "response",
                    "schema": { "type": "object", "properties": { "row": { "type": "integer", "minimum": 0, "maximum": 2 } }, "required": ["row"] },
                    "description": "Respond with structured data matching this schema."
                }
            })
        );
        assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
        let answer = json!({
            "id": "chatcmpl-9", "model": "m",
            "choices": [{ "index": 0, "finish_reason": "stop", "message": { "role": "assistant", "content": "{\"row\": 1}" } }],
            "usage": { "prompt_tokens": 30, "completion_tokens": 6, "total_tokens": 36 }
        });
        let r = sampler.parse_response(&p, answer).unwrap();
        assert_eq!(
            mcp(&r)["content"],
            json!({ "type": "tool_use", "id": "chatcmpl-9-schema", "name": "__schema__", "input": { "row": 1 } })
        );
        assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
        // Truncated JSON stays text (sample_schema re-asks with the problem).
        let cut = json!({"id": "c", "model": "m", "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "{\"row\": "}}]});
        let r = sampler.parse_response(&p, cut).unwrap();
        assert_eq!(r.stop_reason, Some(StopReason::MaxTokens));
        assert_eq!(
            r.content.iter().next().and_then(|c| c.as_text()),
            Some("{\"row\": ")
        );
    }
}

#[test]
fn json_choice_offers_tools_as_an_any_of_and_maps_the_answer_back() {
    let p = params(json!({
        "systemPrompt": "You plan trips.",
        "messages": [
            { "role": "user", "content": { "type": "text", "text": "Research Oslo" } },
            { "role": "assistant", "content": { "type": "tool_use", "id": "t1", "name": "get_weather", "input": { "location": "Oslo" } } },
            { "role": "user", "content": { "type": "tool_result", "toolUseId": "t1", "content": [{ "type": "text", "text": "rain" }] } }
        ],
        "maxTokens": 60,
        "tools": [weather_tool()],
        "toolChoice": { "mode": "required" }
    }));
    let body = choice().request_body(&p).unwrap();
    assert!(body.get("tools").is_none());
    let schema = &body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["anyOf"].as_array().map(Vec::len),
        Some(1),
        "required: no text branch"
    );
    assert_eq!(
        schema["anyOf"][0]["properties"]["tool"],
        json!({ "const": "get_weather" })
    );
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You plan trips.")
            && system.contains("- get_weather: Get current temperature")
    );
    assert_eq!(
        body["messages"][2],
        json!({ "role": "assistant", "content": "{\"tool\":\"get_weather\",\"arguments\":{\"location\":\"Oslo\"}}" })
    );
    assert_eq!(
        body["messages"][3],
        json!({ "role": "user", "content": "Result of get_weather: rain" })
    );
    let answer = json!({
        "id": "chatcmpl-7", "model": "local",
        "choices": [{ "index": 0, "finish_reason": "stop", "message": { "role": "assistant", "content": "{\"tool\": \"get_weather\", \"arguments\": {\"location\": \"Bergen\"}}" } }]
    });
    let r = choice().parse_response(&p, answer).unwrap();
    assert_eq!(
        mcp(&r)["content"],
        json!({ "type": "tool_use", "id": "chatcmpl-7-0", "name": "get_weather", "input": { "location": "Bergen" } })
    );
    assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
    // auto adds a text branch; none offers no tools at all.
    let mut auto = p.clone();
    auto.tool_choice = None;
    let body = choice().request_body(&auto).unwrap();
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["anyOf"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let said = json!({"id": "c", "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "{\"text\": \"Bring an umbrella\"}"}}]});
    let r = choice().parse_response(&auto, said).unwrap();
    assert_eq!(
        r.content.iter().next().and_then(|c| c.as_text()),
        Some("Bring an umbrella")
    );
    assert_eq!(r.stop_reason, Some(StopReason::EndTurn));
    let mut none = p.clone();
    none.tool_choice = serde_json::from_value(json!({"mode": "none"})).unwrap();
    let body = choice().request_body(&none).unwrap();
    assert!(body.get("response_format").is_none() && body.get("tools").is_none());
}

#[test]
fn bad_answers_and_unsupported_content_are_errors_not_panics() {
    let p = params(json!({"messages": [], "maxTokens": 5}));
    for bad in [
        json!({}),
        json!({"choices": []}),
        json!({"choices": [{}]}),
        json!("nope"),
    ] {
        let err = native().parse_response(&p, bad).unwrap_err();
        assert!(matches!(err, ProviderError::Decode(_)), "{err}");
    }
    let bad_args = json!({"id": "x", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{not json"}}]}}]});
    assert!(matches!(
        native().parse_response(&p, bad_args),
        Err(ProviderError::Decode(_))
    ));
    let ogg = params(
        json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/ogg"}}], "maxTokens": 5}),
    );
    let err = native().request_body(&ogg).unwrap_err();
    assert_eq!(ErrorObject::from(err).code, -32602);
    let wav = params(
        json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}], "maxTokens": 5}),
    );
    assert_eq!(
        native().request_body(&wav).unwrap()["messages"][0]["content"][0],
        json!({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}})
    );
    let image_reply = params(
        json!({"messages": [{"role": "assistant", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}}], "maxTokens": 5}),
    );
    assert!(matches!(
        native().request_body(&image_reply),
        Err(ProviderError::Unsupported(_))
    ));
}

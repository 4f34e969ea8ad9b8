//! The requests every server gets: `echo` of a 1 KiB string and `add` of two integers, in
//! a 2025-11-25 session or as sessionless MCP 2026-07-28 requests; and the 2026 rows'
//! 3-round MRTR call of `three_rounds`.

use serde::Deserialize;
use serde::de::IgnoredAny;

/// Protocol version the driver negotiates.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Protocol version of the sessionless (modern) rows.
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// The `_meta` member every modern request carries: the version, the client's capabilities
/// (form elicitation, for `three_rounds`) and its identity.
const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"tracksuit-bench","version":"0.1.0"}}"#;

/// The `three_rounds` tool's name.
pub const THREE_ROUNDS: &str = "three_rounds";

/// What one measured call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// One `tools/call` of a benchmark tool.
    Tool(Tool),
    /// The `three_rounds` tool over MCP 2026-07-28: three `input_required` rounds, each
    /// answered and retried, then the result (four POSTs, counted as one call).
    ThreeRounds,
}

impl Call {
    /// The name shown in the report's tool column.
    pub fn name(self) -> &'static str {
        match self {
            Call::Tool(tool) => tool.name(),
            Call::ThreeRounds => THREE_ROUNDS,
        }
    }
}

/// The benchmark's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `echo` with a 1 KiB text.
    Echo,
    /// `add` with structured output.
    Add,
}

impl Tool {
    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Echo => "echo",
            Tool::Add => "add",
        }
    }
}

/// The 1 KiB text echoed (printable ASCII, no escapes needed).
pub fn echo_text() -> String {
    (0..1024).map(|i| (b'a' + (i % 26) as u8) as char).collect()
}

/// Builds request bodies without a serializer on the hot path.
#[derive(Debug, Clone)]
pub struct Requests {
    text: String,
}

impl Default for Requests {
    fn default() -> Self {
        Requests { text: echo_text() }
    }
}

impl Requests {
    /// `initialize`.
    pub fn initialize(id: u64) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"tracksuit-bench","version":"0.1.0"}}}}}}"#
        )
    }

    /// `notifications/initialized`.
    pub fn initialized() -> &'static str {
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
    }

    /// One `tools/call`.
    pub fn call(&self, tool: Tool, id: u64) -> String {
        match tool {
            Tool::Echo => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
                self.text
            ),
            Tool::Add => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":{}}}}}}}"#,
                id * 2
            ),
        }
    }

    /// One sessionless (MCP 2026-07-28) `tools/call`: the same arguments as [`Requests::call`],
    /// with the modern `_meta`.
    pub fn modern_call(&self, tool: Tool, id: u64) -> String {
        match tool {
            Tool::Echo => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}},{MODERN_META}}}}}"#,
                self.text
            ),
            Tool::Add => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":{}}},{MODERN_META}}}}}"#,
                id * 2
            ),
        }
    }

    /// One round of the modern `three_rounds` call: the first (`retry` is `None`), or a
    /// retry with the answers (a JSON object, as text) and the `requestState` the last
    /// round returned, echoed verbatim (absent if it returned none).
    pub fn three_rounds(id: u64, retry: Option<(&str, Option<&str>)>) -> String {
        let mut body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{THREE_ROUNDS}","arguments":{{}},{MODERN_META}"#
        );
        if let Some((responses, state)) = retry {
            body.push_str(r#","inputResponses":"#);
            body.push_str(responses);
            if let Some(state) = state {
                body.push_str(r#","requestState":"#);
                body.push_str(&serde_json::Value::from(state).to_string());
            }
        }
        body.push_str("}}");
        body
    }

    /// `tools/call` of the robustness run's slow tool, optionally task-augmented.
    pub fn sleep_call(id: u64, ms: u64, as_task: bool) -> String {
        let task = if as_task {
            r#","task":{"ttl":1000}"#
        } else {
            ""
        };
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":{ms}}}{task}}}}}"#
        )
    }

    /// `notifications/cancelled` for request `id`.
    pub fn cancelled(id: u64) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"bench"}}}}"#
        )
    }
}

/// What the driver reads of a response on the hot path: its id and whether it failed.
#[derive(Debug, Deserialize)]
pub struct ResponseHead {
    /// Request id (absent on notifications).
    pub id: Option<u64>,
    /// Present on success.
    pub result: Option<ResultHead>,
    /// Present on failure.
    pub error: Option<IgnoredAny>,
}

/// The part of a result the driver checks.
#[derive(Debug, Deserialize)]
pub struct ResultHead {
    /// Tool execution error flag.
    #[serde(rename = "isError", default)]
    pub is_error: bool,
}

impl ResponseHead {
    /// Parses a line; `None` if it is not JSON-RPC.
    pub fn parse(bytes: &[u8]) -> Option<ResponseHead> {
        serde_json::from_slice(bytes).ok()
    }

    /// True for a successful, non-error tool result.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.result.as_ref().is_some_and(|r| !r.is_error)
    }
}

/// What the driver reads of a modern response on the hot path.
#[derive(Debug, Deserialize)]
pub struct ModernHead {
    /// Request id.
    pub id: Option<u64>,
    /// Present on success.
    pub result: Option<ModernResultHead>,
    /// Present on failure.
    pub error: Option<IgnoredAny>,
}

/// The part of a modern result the driver checks.
#[derive(Debug, Deserialize)]
pub struct ModernResultHead {
    /// `complete` on a finished call.
    #[serde(rename = "resultType")]
    pub result_type: Option<String>,
    /// Tool execution error flag.
    #[serde(rename = "isError", default)]
    pub is_error: bool,
}

impl ModernHead {
    /// Parses a body; `None` if it is not JSON-RPC.
    pub fn parse(bytes: &[u8]) -> Option<ModernHead> {
        serde_json::from_slice(bytes).ok()
    }

    /// True for a complete, non-error tool result.
    pub fn ok(&self) -> bool {
        self.error.is_none()
            && self
                .result
                .as_ref()
                .is_some_and(|r| !r.is_error && r.result_type.as_deref() == Some("complete"))
    }
}

/// Checks a full `tools/call` response for correctness (done once per server, off the clock).
pub fn verify(tool: Tool, id: u64, response: &serde_json::Value) -> Result<(), String> {
    let result = response
        .get("result")
        .ok_or_else(|| format!("no result: {response}"))?;
    match tool {
        Tool::Echo => {
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            if text != echo_text() {
                return Err(format!("echo returned {text:.40}..."));
            }
        }
        Tool::Add => {
            let sum = result["structuredContent"]["sum"].as_i64();
            if sum != Some((id * 3) as i64) {
                return Err(format!("add returned {result}"));
            }
        }
    }
    Ok(())
}

/// How many `input_required` rounds `three_rounds` asks for before its result.
pub const THREE_ROUNDS_ROUNDS: u32 = 3;

/// What a `three_rounds` client does after the response to its `post`-th request
/// (0-based), `answered` counting the answers given in this call so far.
pub enum NextRound {
    /// Send the call again with these `inputResponses` (a JSON object, as text) and the
    /// `requestState` the round returned (verbatim; absent if it returned none).
    Retry(String, Option<String>),
    /// The call is complete and its result names the three answers.
    Done,
}

/// Reads one `three_rounds` response (a whole JSON-RPC message): an `input_required`
/// round before the last is answered, every elicitation with `{"answer": "a<n>"}`; the
/// last must be the complete result naming the three answers. `None` for anything else.
pub fn three_rounds_step(
    response: &serde_json::Value,
    post: u32,
    answered: &mut u32,
) -> Option<NextRound> {
    let result = response.get("result")?;
    match result.get("resultType").and_then(|t| t.as_str()) {
        Some("input_required") if post < THREE_ROUNDS_ROUNDS => {
            let requests = result
                .get("inputRequests")
                .and_then(|r| r.as_object())
                .filter(|r| !r.is_empty())?;
            let mut responses = serde_json::Map::with_capacity(requests.len());
            for (key, request) in requests {
                if request.get("method").and_then(|m| m.as_str()) != Some("elicitation/create") {
                    return None;
                }
                *answered += 1;
                responses.insert(
                    key.clone(),
                    serde_json::json!({
                        "action": "accept",
                        "content": {"answer": format!("a{answered}")},
                    }),
                );
            }
            let state = result
                .get("requestState")
                .and_then(|s| s.as_str())
                .map(str::to_owned);
            Some(NextRound::Retry(
                serde_json::Value::Object(responses).to_string(),
                state,
            ))
        }
        Some("complete") if post == THREE_ROUNDS_ROUNDS => {
            let text = result["content"][0]["text"].as_str();
            if result["isError"] == true || text != Some("a1, a2, a3") {
                return None;
            }
            Some(NextRound::Done)
        }
        _ => None,
    }
}

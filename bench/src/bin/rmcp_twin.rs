//! The benchmark server on the official Rust SDK (rmcp 3.x): the same `echo` and `add`,
//! `--stdio` or Streamable HTTP on `--port` with rmcp's default configuration, except that
//! accepted sockets get TCP_NODELAY (without it every call stalls ~40 ms on delayed ACKs)
//! and that MCP 2026-07-28 requests (which rmcp serves statelessly on the same endpoint
//! beside the 2025 sessions) are answered with a JSON body instead of a one-event SSE
//! stream (`json_response`, which only affects requests served without a session).
//!
//! `three_rounds` is the tracksuit twin's tool of the same name written the way rmcp
//! has its authors write multi round-trip requests (MRTR): the handler reads
//! `inputResponses` and `requestState` itself, keeps the answers so far in a
//! `requestState` sealed with rmcp's `RequestStateCodec` (HMAC-SHA256, bound to the
//! call, 15 min TTL like tracksuit's default), and returns an `InputRequiredResult` with
//! the next question until it has all three.

use clap::Parser;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, RequestStateCodec, SealOptions, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{
    ErrorData, Json, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router,
};
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
struct Args {
    #[arg(long)]
    stdio: bool,
    #[arg(long, default_value_t = 9102)]
    port: u16,
    /// Leave TCP_NODELAY off (rmcp's out-of-the-box behaviour).
    #[arg(long)]
    no_nodelay: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

/// What `three_rounds` carries from one round to the next (sealed in `requestState`).
#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Asked {
    /// The answers so far; the next question is `QUESTIONS[answers.len()]`.
    answers: Vec<String>,
}

/// The questions, in order, and the `inputRequests` key of each.
const QUESTIONS: [(&str, &str); 3] = [("q1", "First?"), ("q2", "Second?"), ("q3", "Third?")];

/// What the sealed state is bound to (there are no arguments to digest).
const BINDING: &[u8] = b"tools/call\0three_rounds";

#[derive(Debug, Clone)]
struct Twin {
    tool_router: ToolRouter<Self>,
    /// Seals `three_rounds`' state (a random key per process).
    codec: Arc<RequestStateCodec>,
    /// The one-field form `three_rounds` asks with.
    form: Arc<ElicitationSchema>,
}

#[tool_router]
impl Twin {
    fn new() -> Self {
        let key: [u8; 32] = rand::random();
        Twin {
            tool_router: Self::tool_router(),
            codec: Arc::new(RequestStateCodec::try_new(key.to_vec()).expect("a 32-byte key")),
            form: Arc::new(
                ElicitationSchema::builder()
                    .required_string_with("answer", |s| s.description("The answer"))
                    .build()
                    .expect("a valid form"),
            ),
        }
    }

    /// Echoes the text.
    #[tool]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Adds two integers.
    #[tool]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }

    /// Asks the client three things, one after the other, and returns the answers.
    #[tool]
    async fn three_rounds(
        &self,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut asked = match &state {
            None => Asked::default(),
            Some(token) => self
                .codec
                .open_json_with(token, BINDING)
                .map_err(|_| ErrorData::invalid_params("requestState refused", None))?,
        };
        // The answer to the question asked last round, if the client sent it (a missing
        // answer is asked again).
        let mut responses = responses.unwrap_or_default();
        if state.is_some()
            && let Some((key, _)) = QUESTIONS.get(asked.answers.len())
            && let Some(value) = responses.remove(*key)
        {
            let result: ElicitResult = serde_json::from_value(value).map_err(|e| {
                ErrorData::invalid_params(format!("inputResponses[{key}]: {e}"), None)
            })?;
            let answer = match (result.action, &result.content) {
                (ElicitationAction::Accept, Some(content)) => content
                    .get("answer")
                    .and_then(|a| a.as_str())
                    .ok_or_else(|| {
                        ErrorData::invalid_params(format!("inputResponses[{key}]: no answer"), None)
                    })?
                    .to_owned(),
                _ => String::new(),
            };
            asked.answers.push(answer);
        }
        let Some((key, question)) = QUESTIONS.get(asked.answers.len()) else {
            let text = asked.answers.join(", ");
            return Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into());
        };
        // Only what the client declared it can answer may be asked (tracksuit checks this
        // in `create_elicitation`; an rmcp author checks it by hand).
        if context
            .client_capabilities()
            .is_none_or(|c| c.elicitation.is_none())
        {
            return Err(ErrorData::invalid_request(
                "three_rounds needs the client's elicitation capability",
                None,
            ));
        }
        let request = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: (*question).to_owned(),
            requested_schema: (*self.form).clone(),
        });
        let mut requests = InputRequests::new();
        requests.insert((*key).to_owned(), InputRequest::Elicitation(request));
        let options = SealOptions::new()
            .associated_data(BINDING)
            .ttl(Duration::from_secs(15 * 60));
        let token = self
            .codec
            .seal_json_with(&asked, &options)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(InputRequiredResult::new(Some(requests), Some(token)).into())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Twin {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        if args.stdio {
            let service = Twin::new().serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
            return Ok(());
        }
        // rmcp calls the factory per session, and per request for the stateless (2026)
        // ones: hand out clones of one twin (the same key for every round of a call).
        let twin = Twin::new();
        let service: StreamableHttpService<Twin, LocalSessionManager> = StreamableHttpService::new(
            move || Ok(twin.clone()),
            Default::default(),
            StreamableHttpServerConfig::default().with_json_response(true),
        );
        let app = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
        let nodelay = !args.no_nodelay;
        let listener = axum::serve::ListenerExt::tap_io(listener, move |tcp| {
            if nodelay {
                let _ = tcp.set_nodelay(true);
            }
        });
        axum::serve(listener, app).await?;
        Ok(())
    })
}

//! Initialization, capabilities and version negotiation (basic/lifecycle.mdx).

use super::open::deserialize_open;
use super::{Icon, JsonObject, Meta};
use serde::{Deserialize, Serialize};

deserialize_open!(Implementation "an implementation's name and version" {
    "title" => title,
    "description" => description,
    "icons" => icons,
    "websiteUrl" => website_url,
} required("name" => name, "version" => version));

deserialize_open!(ClientCapabilities "client capabilities" {
    "experimental" => experimental,
    "roots" => roots,
    "sampling" => sampling,
    "elicitation" => elicitation,
    "tasks" => tasks,
} required());

/// The name and version of an MCP implementation.
///
/// ```
/// use tracksuit::protocol::Implementation;
/// let info = Implementation { title: Some("Weather".into()), ..Implementation::new("weather", "1.0.0") };
/// assert_eq!(serde_json::to_value(&info).unwrap(), serde_json::json!({"name": "weather", "title": "Weather", "version": "1.0.0"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Its website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl Implementation {
    /// An implementation with a name and version.
    ///
    /// ```
    /// let i = tracksuit::protocol::Implementation::new("demo", "1.0.0");
    /// assert_eq!(i.version, "1.0.0");
    /// ```
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            ..Default::default()
        }
    }
}

/// `roots` client capability.
///
/// ```
/// use tracksuit::protocol::{ClientCapabilities, RootsCapability};
/// let caps = ClientCapabilities {
///     roots: Some(RootsCapability { list_changed: Some(true) }),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&caps).unwrap(), serde_json::json!({"roots": {"listChanged": true}}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// The client sends `notifications/roots/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `sampling` client capability.
///
/// ```
/// use tracksuit::protocol::ClientCapabilities;
/// let caps: ClientCapabilities =
///     serde_json::from_value(serde_json::json!({"sampling": {"tools": {}}})).unwrap();
/// // This client accepts `tools` in `sampling/createMessage` (SEP-1577), not `includeContext`.
/// let sampling = caps.sampling.unwrap();
/// assert!(sampling.tools.is_some() && sampling.context.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// The client honours `includeContext` other than `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// The client accepts `tools` and `toolChoice` (SEP-1577).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// `elicitation` client capability. An empty object means form mode only.
///
/// ```
/// use tracksuit::protocol::ClientCapabilities;
/// let caps: ClientCapabilities =
///     serde_json::from_value(serde_json::json!({"elicitation": {"url": {}}})).unwrap();
/// let elicitation = caps.elicitation.unwrap();
/// assert!(elicitation.url.is_some() && elicitation.form.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

/// `tasks` capability (either side): which requests may be task-augmented.
///
/// ```
/// use tracksuit::protocol::TasksCapability;
/// let caps: TasksCapability = serde_json::from_value(serde_json::json!({
///     "list": {}, "cancel": {}, "requests": {"tools": {"call": {}}},
/// }))
/// .unwrap();
/// assert!(caps.requests.unwrap()["tools"].get("call").is_some());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TasksCapability {
    /// Supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// The request types that may be task-augmented, e.g. `{"tools": {"call": {}}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<JsonObject>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// The client's `tasks` capability.
///
/// ```
/// use tracksuit::protocol::{ClientCapabilities, ClientTasksCapability};
/// let caps = ClientCapabilities {
///     tasks: Some(ClientTasksCapability { cancel: Some(Default::default()), ..Default::default() }),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&caps).unwrap(), serde_json::json!({"tasks": {"cancel": {}}}));
/// ```
pub type ClientTasksCapability = TasksCapability;
/// The server's `tasks` capability.
///
/// ```
/// use tracksuit::protocol::{ServerCapabilities, ServerTasksCapability};
/// let caps = ServerCapabilities {
///     tasks: Some(ServerTasksCapability { list: Some(Default::default()), ..Default::default() }),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&caps).unwrap()["tasks"], serde_json::json!({"list": {}}));
/// ```
pub type ServerTasksCapability = TasksCapability;

/// What a client supports.
///
/// ```
/// use tracksuit::{Ctx, Server, client::Client, mcp_tool, protocol::Root};
/// /// Whether the client can list roots.
/// #[mcp_tool]
/// async fn has_roots(ctx: &Ctx) -> String {
///     ctx.client_capabilities().roots.is_some().to_string()
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(has_roots).build()?;
/// let builder = Client::builder().roots(vec![Root::new("file:///work")]); // declares `roots`
/// let client = tracksuit::host::connect_in_memory(server, builder).await?;
/// let result = client.call_tool("has_roots", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("true"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClientCapabilities {
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// `listChanged` capability of prompts and tools.
///
/// ```
/// use tracksuit::protocol::{ListChangedCapability, ServerCapabilities};
/// let caps = ServerCapabilities {
///     tools: Some(ListChangedCapability { list_changed: Some(true) }),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&caps).unwrap(), serde_json::json!({"tools": {"listChanged": true}}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The server sends `notifications/*/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `resources` server capability.
///
/// ```
/// use tracksuit::protocol::{ResourcesCapability, ServerCapabilities};
/// let caps = ServerCapabilities {
///     resources: Some(ResourcesCapability { subscribe: Some(true), list_changed: None }),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&caps).unwrap()["resources"], serde_json::json!({"subscribe": true}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Supports `resources/subscribe`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Sends `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// What a server supports.
///
/// ```
/// use tracksuit::{Server, client::Client, mcp_tool};
/// /// Says pong.
/// #[mcp_tool]
/// async fn ping() -> String { "pong".into() }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(ping).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let caps = &client.server_init().unwrap().capabilities;
/// assert!(caps.tools.is_some());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Sends log messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Answers `completion/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// Offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// Supports tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// `initialize` params.
///
/// ```
/// use tracksuit::protocol::{ClientCapabilities, Implementation, InitializeRequestParams};
/// let params = InitializeRequestParams {
///     protocol_version: "2025-11-25".into(),
///     capabilities: ClientCapabilities::default(),
///     client_info: Implementation::new("my-agent", "0.1.0"),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&params).unwrap()["clientInfo"]["name"], "my-agent");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The newest version the client supports.
    pub protocol_version: String,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `initialize` result.
///
/// ```
/// use tracksuit::protocol::InitializeResult;
/// let json = serde_json::json!({
///     "protocolVersion": "2025-11-25",
///     "capabilities": {"tools": {"listChanged": true}},
///     "serverInfo": {"name": "weather", "version": "1.0.0"},
/// });
/// let init: InitializeResult = serde_json::from_value(json).unwrap();
/// assert_eq!(init.capabilities.tools.unwrap().list_changed, Some(true));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server will speak.
    pub protocol_version: String,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

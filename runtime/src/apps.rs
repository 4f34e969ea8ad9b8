//! MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension): HTML a host renders in
//! a sandboxed iframe next to a tool call.
//!
//! A [`UiResource`] is a `ui://` resource of type `text/html;profile=mcp-app` with its
//! sandbox needs in `_meta.ui` ([`Csp`] domains, [`Permissions`]). A tool is linked to it by
//! `_meta.ui.resourceUri`. Register both on the server with
//! [`Server::ui_resource`](crate::Server::ui_resource) and
//! [`Server::app_tool`](crate::Server::app_tool); [`build`](crate::Server::build) fails with
//! [`ServerError::UnknownUiResource`](crate::ServerError::UnknownUiResource) when a tool
//! links to a `ui://` URI the server does not serve as an app.
//!
//! ```
//! use tracksuit::apps::{Csp, Permissions, UiResource};
//! use tracksuit::{Server, ServerError, ToolFn, protocol::{CallToolResult, Tool}};
//! let clock = || ToolFn::new(Tool::new("clock", Default::default()), |_ctx, _args| async {
//!     Ok(CallToolResult::text("12:00"))
//! });
//! let page = UiResource::new("ui://clock/face.html", "clock-face", "<p>12:00</p>")
//!     .csp(Csp::new().resource_domain("https://fonts.example"))
//!     .permissions(Permissions::new().clipboard_write());
//! let server = Server::new(tracksuit::crate_info!())
//!     .ui_resource(page)
//!     .app_tool(clock(), "ui://clock/face.html")
//!     .build()?;
//! # let _ = server;
//! let dangling = Server::new(tracksuit::crate_info!()).app_tool(clock(), "ui://clock/none");
//! assert!(matches!(dangling.build(), Err(ServerError::UnknownUiResource { .. })));
//! # Ok::<(), ServerError>(())
//! ```

use crate::protocol::{
    JsonObject, ReadResourceResult, Resource, ResourceContents, TextResourceContents, Tool,
};
use serde_json::{Value, json};

/// The extension's identifier (clients declare it under `capabilities.extensions`).
///
/// ```
/// use tracksuit::{apps::APPS_EXTENSION, protocol::ClientCapabilities};
/// // A host that renders apps declares the extension in its capabilities.
/// let caps: ClientCapabilities = serde_json::from_value(serde_json::json!({
///     "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
/// })).unwrap();
/// assert!(caps.extra["extensions"].get(APPS_EXTENSION).is_some());
/// ```
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML.
///
/// ```
/// use tracksuit::apps::{APP_MIME, UiResource};
/// let app = UiResource::new("ui://clock/face.html", "clock-face", "<p>12:00</p>");
/// assert_eq!(app.descriptor().mime_type.as_deref(), Some(APP_MIME));
/// assert_eq!(APP_MIME, "text/html;profile=mcp-app");
/// ```
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The origins an app may reach, beyond its own inline content (`_meta.ui.csp`). The host
/// builds the iframe's Content-Security-Policy from them; with none the app is offline.
///
/// ```
/// use tracksuit::apps::{Csp, UiResource};
/// let app = UiResource::new("ui://map/view.html", "map", "<div id=map></div>")
///     .csp(Csp::new().connect_domain("https://tiles.example"));
/// let meta = app.descriptor().meta.unwrap();
/// assert_eq!(meta["ui"]["csp"]["connectDomains"][0], "https://tiles.example");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Csp {
    connect: Vec<String>,
    resource: Vec<String>,
    frame: Vec<String>,
    base_uri: Vec<String>,
}

impl Csp {
    /// No origins.
    pub fn new() -> Self {
        Csp::default()
    }

    /// Allows network requests (fetch, XHR, WebSocket) to `origin`.
    ///
    /// ```
    /// use tracksuit::apps::{Csp, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").csp(Csp::new().connect_domain("https://api.example"));
    /// assert_eq!(app.descriptor().meta.unwrap()["ui"]["csp"]["connectDomains"][0], "https://api.example");
    /// ```
    pub fn connect_domain(mut self, origin: impl Into<String>) -> Self {
        self.connect.push(origin.into());
        self
    }

    /// Allows static resources (scripts, styles, images, fonts, media) from `origin`.
    ///
    /// ```
    /// use tracksuit::apps::{Csp, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").csp(Csp::new().resource_domain("https://cdn.example"));
    /// assert_eq!(app.descriptor().meta.unwrap()["ui"]["csp"]["resourceDomains"][0], "https://cdn.example");
    /// ```
    pub fn resource_domain(mut self, origin: impl Into<String>) -> Self {
        self.resource.push(origin.into());
        self
    }

    /// Allows nested iframes from `origin`.
    ///
    /// ```
    /// use tracksuit::apps::{Csp, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").csp(Csp::new().frame_domain("https://video.example"));
    /// assert_eq!(app.descriptor().meta.unwrap()["ui"]["csp"]["frameDomains"][0], "https://video.example");
    /// ```
    pub fn frame_domain(mut self, origin: impl Into<String>) -> Self {
        self.frame.push(origin.into());
        self
    }

    /// Allows `origin` as the document's base URI.
    ///
    /// ```
    /// use tracksuit::apps::{Csp, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").csp(Csp::new().base_uri_domain("https://app.example"));
    /// assert_eq!(app.descriptor().meta.unwrap()["ui"]["csp"]["baseUriDomains"][0], "https://app.example");
    /// ```
    pub fn base_uri_domain(mut self, origin: impl Into<String>) -> Self {
        self.base_uri.push(origin.into());
        self
    }

    fn to_json(&self) -> Option<Value> {
        let mut map = JsonObject::new();
        for (key, list) in [
            ("connectDomains", &self.connect),
            ("resourceDomains", &self.resource),
            ("frameDomains", &self.frame),
            ("baseUriDomains", &self.base_uri),
        ] {
            if !list.is_empty() {
                map.insert(key.into(), json!(list));
            }
        }
        (!map.is_empty()).then_some(Value::Object(map))
    }
}

/// Browser capabilities an app asks the host's sandbox for (`_meta.ui.permissions`).
///
/// ```
/// use tracksuit::apps::{Permissions, UiResource};
/// let app = UiResource::new("ui://a/b", "b", "<p/>")
///     .permissions(Permissions::new().camera().microphone());
/// let meta = app.descriptor().meta.unwrap();
/// assert_eq!(meta["ui"]["permissions"], serde_json::json!({"camera": {}, "microphone": {}}));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Permissions {
    camera: bool,
    microphone: bool,
    geolocation: bool,
    clipboard_write: bool,
}

impl Permissions {
    /// None.
    pub fn new() -> Self {
        Permissions::default()
    }

    /// The camera.
    ///
    /// ```
    /// use tracksuit::apps::{Permissions, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").permissions(Permissions::new().camera());
    /// assert!(app.descriptor().meta.unwrap()["ui"]["permissions"]["camera"].is_object());
    /// ```
    pub fn camera(mut self) -> Self {
        self.camera = true;
        self
    }

    /// The microphone.
    ///
    /// ```
    /// use tracksuit::apps::{Permissions, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").permissions(Permissions::new().microphone());
    /// assert!(app.descriptor().meta.unwrap()["ui"]["permissions"]["microphone"].is_object());
    /// ```
    pub fn microphone(mut self) -> Self {
        self.microphone = true;
        self
    }

    /// The location.
    ///
    /// ```
    /// use tracksuit::apps::{Permissions, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").permissions(Permissions::new().geolocation());
    /// assert!(app.descriptor().meta.unwrap()["ui"]["permissions"]["geolocation"].is_object());
    /// ```
    pub fn geolocation(mut self) -> Self {
        self.geolocation = true;
        self
    }

    /// Writing to the clipboard.
    ///
    /// ```
    /// use tracksuit::apps::{Permissions, UiResource};
    /// let app = UiResource::new("ui://a/b", "b", "<p/>").permissions(Permissions::new().clipboard_write());
    /// assert!(app.descriptor().meta.unwrap()["ui"]["permissions"]["clipboardWrite"].is_object());
    /// ```
    pub fn clipboard_write(mut self) -> Self {
        self.clipboard_write = true;
        self
    }

    fn to_json(self) -> Option<Value> {
        let mut map = JsonObject::new();
        for (key, on) in [
            ("camera", self.camera),
            ("microphone", self.microphone),
            ("geolocation", self.geolocation),
            ("clipboardWrite", self.clipboard_write),
        ] {
            if on {
                map.insert(key.into(), json!({}));
            }
        }
        (!map.is_empty()).then_some(Value::Object(map))
    }
}

/// A `ui://` resource: an MCP App's HTML and what its sandbox needs.
///
/// ```
/// use tracksuit::{Server, client::Client, apps::UiResource};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let app = UiResource::new("ui://clock/face.html", "clock-face", "<p>12:00</p>")
///     .description("A clock face");
/// let server = Server::new(tracksuit::crate_info!()).ui_resource(app).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let read = serde_json::to_value(client.read_resource("ui://clock/face.html").await?)?;
/// assert_eq!(read["contents"][0]["text"], "<p>12:00</p>");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UiResource {
    uri: String,
    name: String,
    description: Option<String>,
    html: String,
    csp: Csp,
    permissions: Permissions,
    prefers_border: Option<bool>,
}

impl UiResource {
    /// The app at `uri` (which should start with `ui://`; [`Server::ui_resource`] refuses
    /// another scheme at build time), named `name`, whose whole document is `html` (inline
    /// its scripts and styles, or allow their origins with [`Csp`]).
    ///
    /// [`Server::ui_resource`]: crate::Server::ui_resource
    ///
    /// ```
    /// let app = tracksuit::apps::UiResource::new("ui://clock/face.html", "clock-face", "<p>12:00</p>");
    /// assert_eq!(app.uri(), "ui://clock/face.html");
    /// ```
    pub fn new(uri: impl Into<String>, name: impl Into<String>, html: impl Into<String>) -> Self {
        UiResource {
            uri: uri.into(),
            name: name.into(),
            description: None,
            html: html.into(),
            csp: Csp::default(),
            permissions: Permissions::default(),
            prefers_border: None,
        }
    }

    /// Describes the app (shown in `resources/list`).
    ///
    /// ```
    /// let app = tracksuit::apps::UiResource::new("ui://a/b", "b", "<p/>").description("A clock face");
    /// assert_eq!(app.descriptor().description.as_deref(), Some("A clock face"));
    /// ```
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// The origins the app may reach.
    pub fn csp(mut self, csp: Csp) -> Self {
        self.csp = csp;
        self
    }

    /// The browser capabilities the app asks for.
    pub fn permissions(mut self, permissions: Permissions) -> Self {
        self.permissions = permissions;
        self
    }

    /// Whether the host should draw a border around the app.
    ///
    /// ```
    /// let app = tracksuit::apps::UiResource::new("ui://a/b", "b", "<p/>").prefers_border(false);
    /// assert_eq!(app.descriptor().meta.unwrap()["ui"]["prefersBorder"], false);
    /// ```
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.prefers_border = Some(border);
        self
    }

    /// The URI.
    ///
    /// ```
    /// let app = tracksuit::apps::UiResource::new("ui://a/b", "b", "<p/>");
    /// assert_eq!(app.uri(), "ui://a/b");
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// `_meta` of the resource and its contents: `{"ui": {csp, permissions, prefersBorder}}`.
    fn meta(&self) -> Option<JsonObject> {
        let mut ui = JsonObject::new();
        if let Some(csp) = self.csp.to_json() {
            ui.insert("csp".into(), csp);
        }
        if let Some(permissions) = self.permissions.to_json() {
            ui.insert("permissions".into(), permissions);
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".into(), border.into());
        }
        (!ui.is_empty()).then(|| {
            let mut meta = JsonObject::new();
            meta.insert("ui".into(), Value::Object(ui));
            meta
        })
    }

    /// The descriptor listed in `resources/list`.
    ///
    /// ```
    /// let app = tracksuit::apps::UiResource::new("ui://a/b", "b", "<p>hi</p>");
    /// assert_eq!(app.descriptor().mime_type.as_deref(), Some(tracksuit::apps::APP_MIME));
    /// ```
    pub fn descriptor(&self) -> Resource {
        let mut descriptor = Resource::new(self.uri.clone(), self.name.clone());
        descriptor.description = self.description.clone();
        descriptor.mime_type = Some(APP_MIME.into());
        descriptor.meta = self.meta();
        descriptor
    }

    /// The `resources/read` result: the HTML, with the same `_meta`.
    ///
    /// ```
    /// let app = tracksuit::apps::UiResource::new("ui://a/b", "b", "<p>hi</p>");
    /// let json = serde_json::to_value(app.contents()).unwrap();
    /// assert_eq!(json["contents"][0]["text"], "<p>hi</p>");
    /// assert_eq!(json["contents"][0]["mimeType"], tracksuit::apps::APP_MIME);
    /// ```
    pub fn contents(&self) -> ReadResourceResult {
        ReadResourceResult::new(vec![ResourceContents::Text(TextResourceContents {
            uri: self.uri.clone(),
            mime_type: Some(APP_MIME.into()),
            text: self.html.clone(),
            meta: self.meta(),
        })])
    }
}

/// Links `tool` to the app at `uri`: sets `_meta.ui.resourceUri` (keeping any other
/// `_meta.ui` keys, such as `visibility`).
///
/// ```
/// let mut tool = tracksuit::protocol::Tool::new("clock", Default::default());
/// tracksuit::apps::link(&mut tool, "ui://clock/face.html");
/// assert_eq!(tracksuit::apps::linked_uri(&tool), Some("ui://clock/face.html"));
/// ```
pub fn link(tool: &mut Tool, uri: &str) {
    let meta = tool.meta.get_or_insert_with(JsonObject::new);
    let ui = meta
        .entry("ui")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    if !ui.is_object() {
        *ui = Value::Object(JsonObject::new());
    }
    if let Value::Object(ui) = ui {
        ui.insert("resourceUri".into(), uri.into());
    }
}

/// The app `tool` is linked to (`_meta.ui.resourceUri`), if any.
///
/// ```
/// let tool = tracksuit::protocol::Tool::new("plain", Default::default());
/// assert_eq!(tracksuit::apps::linked_uri(&tool), None);
/// ```
pub fn linked_uri(tool: &Tool) -> Option<&str> {
    tool.meta.as_ref()?.get("ui")?.get("resourceUri")?.as_str()
}

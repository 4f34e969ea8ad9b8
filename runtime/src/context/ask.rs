//! What a handler asks the client (sampling, elicitation, roots, ping, any request) and the
//! log of the answers, which is what lets a call be replayed (MCP 2026-07-28 rounds, durable
//! tasks).

use super::{Ctx, KEYED_ELICITATION_META};
use crate::peer::RequestError;
use crate::peer::sync::lock;
use crate::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, FormOut,
    ListRootsResult, methods,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::Duration;

/// One answer the client gave during a call (sampling or elicitation), in order. A handoff
/// tool's `client` phase is deterministic given its inputs and these answers, which is what
/// lets a stateless engine (MCP 2026-07-28 MRTR, durable tasks) replay it.
///
/// ```
/// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::*};
/// /// Asks the model once, then reports what the call's log kept.
/// #[mcp_tool]
/// async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
///     let params = CreateMessageRequestParams {
///         messages: vec![SamplingMessage::user_text("hi")],
///         max_tokens: 8,
///         ..Default::default()
///     };
///     ctx.create_message(params).await.map_err(|e| ToolError::new(e.to_string()))?;
///     let log = ctx.exchange_log();
///     Ok(format!("{} {}", log.len(), log[0].method))
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(ask).build()?;
/// let client = tracksuit::client::Client::builder().on_sampling(|_params| async {
///     Ok(CreateMessageResult {
///         role: Role::Assistant,
///         content: SamplingMessageContentBlock::text("hello").into(),
///         model: "echo".into(),
///         stop_reason: Some(StopReason::EndTurn),
///         meta: None,
///         extra: Default::default(),
///     })
/// });
/// let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("ask", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("1 sampling/createMessage"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoggedExchange {
    /// The request method (`sampling/createMessage`, `elicitation/create`).
    pub method: String,
    /// The request params.
    pub params: Value,
    /// The client's result.
    pub result: Value,
}

/// A [`LoggedExchange`] as the call keeps it: the params as the JSON text they were sent
/// (or asked) as, turned into a value only when the log is read.
pub(super) struct KeptExchange {
    /// `sampling/createMessage` or `elicitation/create`.
    pub(super) method: &'static str,
    /// JSON text, as serde_json wrote it.
    pub(super) params: String,
    pub(super) result: KeptResult,
}

/// The method a [`KeptExchange`] records, if `method` is one that is logged.
pub(super) fn logged_method(method: &str) -> Option<&'static str> {
    [
        methods::SAMPLING_CREATE_MESSAGE,
        methods::ELICITATION_CREATE,
    ]
    .into_iter()
    .find(|m| *m == method)
}

/// The client's result in a [`KeptExchange`], as the JSON text it was carried as.
type KeptResult = Box<serde_json::value::RawValue>;

/// A request to the client as JSON text, for a modern (2026-07-28) round. 2026-07-28 has no
/// elicitation ids (the retry itself tells the outcome), and a fresh id per replay would
/// make the request differ from the one answered: a URL elicitation's id is dropped.
pub(super) fn question_text<P: Serialize>(
    method: &str,
    params: &P,
) -> Result<String, RequestError> {
    let decode = |e: serde_json::Error| RequestError::Decode(e.to_string());
    let text = json_text(params).map_err(decode)?;
    if method != methods::ELICITATION_CREATE || !text.contains("\"elicitationId\"") {
        return Ok(text);
    }
    let mut value: Value = serde_json::from_str(&text).map_err(decode)?;
    if let Some(map) = value.as_object_mut() {
        map.remove("elicitationId");
    }
    json_text(&value).map_err(decode)
}

/// `value` as JSON text, written into a buffer sized for a typical request (growing it
/// from empty is a reallocation per doubling).
pub(super) fn json_text<P: Serialize + ?Sized>(value: &P) -> Result<String, serde_json::Error> {
    let mut out = Vec::with_capacity(256);
    serde_json::to_writer(&mut out, value)?;
    // serde_json writes UTF-8 only.
    String::from_utf8(out).map_err(serde::ser::Error::custom)
}

/// The key of a keyed elicitation (`_meta["io.tracksuit/elicitation"].key`), read from
/// the request's text without building it.
pub(super) fn keyed_elicitation(params: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        // KEYED_ELICITATION_META
        #[serde(rename = "io.tracksuit/elicitation")]
        keyed: Option<Keyed>,
    }
    #[derive(serde::Deserialize)]
    struct Keyed {
        key: Option<String>,
    }
    const _: () = assert!(KEYED_ELICITATION_META.len() == "io.tracksuit/elicitation".len());
    // The text is serde_json's own (keys written as they are, never escaped): without the
    // `_meta` key's name anywhere in it, there is nothing to parse.
    if !params.contains(KEYED_ELICITATION_META) {
        return None;
    }
    serde_json::from_str::<Params>(params)
        .ok()?
        .meta?
        .keyed?
        .key
}

impl<K> Ctx<K> {
    /// Asks the client's model for a message (`sampling/createMessage`).
    ///
    /// Fails with [`RequestError::CapabilityMissing`] if the client did not declare
    /// `sampling` (or `sampling.tools` when `params.tools` is set), without sending anything.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::*};
    /// /// Asks the client's model a question.
    /// #[mcp_tool]
    /// async fn capital(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let params = CreateMessageRequestParams {
    ///         messages: vec![SamplingMessage::user_text("Capital of France?")],
    ///         max_tokens: 16,
    ///         ..Default::default()
    ///     };
    ///     let answer = ctx.create_message(params).await.map_err(|e| ToolError::new(e.to_string()))?;
    ///     let text = answer.content.iter().find_map(|b| b.as_text()).unwrap_or_default();
    ///     Ok(text.to_owned())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(capital).build()?;
    ///
    /// let client = tracksuit::client::Client::builder().on_sampling(|params| async move {
    ///     assert_eq!(params.max_tokens, 16);
    ///     Ok(CreateMessageResult {
    ///         role: Role::Assistant,
    ///         content: SamplingMessageContentBlock::text("Paris").into(),
    ///         model: "stub-model".into(),
    ///         stop_reason: Some(StopReason::EndTurn),
    ///         meta: None,
    ///         extra: Default::default(),
    ///     })
    /// });
    ///
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("capital", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("Paris"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, RequestError> {
        let caps = self.client_capabilities();
        let Some(sampling) = caps.sampling else {
            return Err(self.missing("sampling").await);
        };
        if params.tools.as_ref().is_some_and(|t| !t.is_empty()) && sampling.tools.is_none() {
            return Err(self.missing("sampling.tools").await);
        }
        self.request(methods::SAMPLING_CREATE_MESSAGE, params).await
    }

    /// Asks the user for input (`elicitation/create`), in form or URL mode.
    ///
    /// Fails with [`RequestError::CapabilityMissing`] if the client did not declare
    /// `elicitation` (an empty object means form mode) or `elicitation.url` for URL mode.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::*};
    /// /// Asks the user to confirm.
    /// #[mcp_tool]
    /// async fn delete(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let params = ElicitRequestParams::Form(ElicitRequestFormParams {
    ///         message: "Delete everything?".into(),
    ///         ..Default::default()
    ///     });
    ///     let answer = ctx.create_elicitation(params).await.map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(format!("{:?}", answer.action))
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(delete).build()?;
    /// let client = tracksuit::client::Client::builder().on_elicitation(|_params| async {
    ///     Ok(ElicitResult { action: ElicitAction::Decline, content: None, meta: None, extra: Default::default() })
    /// });
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("delete", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("Decline"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, RequestError> {
        let is_url = matches!(params, ElicitRequestParams::Url(_));
        if let Some(missing) = self.elicitation_missing(is_url) {
            return Err(self.missing(missing).await);
        }
        self.request(methods::ELICITATION_CREATE, params).await
    }

    /// [`Ctx::create_elicitation`] of form params given as borrowed parts
    /// ([`ElicitRequestFormParams::borrowed`]): the same checks, the same request.
    pub(crate) async fn create_form_elicitation(
        &self,
        params: FormOut<'_>,
    ) -> Result<ElicitResult, RequestError> {
        if let Some(missing) = self.elicitation_missing(false) {
            return Err(self.missing(missing).await);
        }
        self.request(methods::ELICITATION_CREATE, params).await
    }

    /// The elicitation capability a URL (`is_url`) or form elicitation needs and the client
    /// did not declare. Read in place: the capabilities are not copied for each question.
    fn elicitation_missing(&self, is_url: bool) -> Option<&'static str> {
        match self
            .inner
            .session
            .client()
            .and_then(|init| init.capabilities.elicitation.as_ref())
        {
            None => Some("elicitation"),
            Some(e) if is_url && e.url.is_none() => Some("elicitation.url"),
            Some(e) if !is_url && e.form.is_none() && e.url.is_some() => Some("elicitation.form"),
            Some(_) => None,
        }
    }

    /// Lists the client's roots (`roots/list`).
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::Root};
    /// /// Names the client's first root.
    /// #[mcp_tool]
    /// async fn workspace(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let roots = ctx.list_roots().await.map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(roots.roots.first().map(|r| r.uri.clone()).unwrap_or_default())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(workspace).build()?;
    /// let client = tracksuit::client::Client::builder().roots(vec![Root::new("file:///home/me/project")]);
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("workspace", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("file:///home/me/project"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_roots(&self) -> Result<ListRootsResult, RequestError> {
        if self.client_capabilities().roots.is_none() {
            return Err(self.missing("roots").await);
        }
        self.request(methods::ROOTS_LIST, serde_json::json!({}))
            .await
    }

    /// Pings the client.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// Checks the client still answers.
    /// #[mcp_tool]
    /// async fn alive(ctx: &Ctx) -> String {
    ///     if ctx.ping().await.is_ok() { "yes" } else { "no" }.into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(alive).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let result = client.call_tool("alive", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("yes"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn ping(&self) -> Result<(), RequestError> {
        let _: Value = self.request(methods::PING, serde_json::json!({})).await?;
        Ok(())
    }

    /// Sends a request to the client on this request's stream and decodes the answer.
    /// Fails with [`RequestError::Unsupported`] on stateless sessions.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::{ListRootsResult, Root}};
    /// /// Sends `roots/list` by hand and decodes the typed result.
    /// #[mcp_tool]
    /// async fn count_roots(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let roots: ListRootsResult = ctx
    ///         .request("roots/list", serde_json::json!({}))
    ///         .await
    ///         .map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(roots.roots.len().to_string())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(count_roots).build()?;
    /// let client = tracksuit::client::Client::builder().roots(vec![Root::new("file:///a"), Root::new("file:///b")]);
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("count_roots", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("2"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn request<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> Result<R, RequestError> {
        self.request_with_timeout(method, params, self.inner.session.request_timeout())
            .await
    }

    /// [`Ctx::request`] with an explicit timeout.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    /// /// Gives the client two seconds to answer a ping.
    /// #[mcp_tool]
    /// async fn quick_ping(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let _: serde_json::Value = ctx
    ///         .request_with_timeout("ping", serde_json::json!({}), Duration::from_secs(2))
    ///         .await
    ///         .map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok("pong".into())
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(quick_ping).build().unwrap();
    /// ```
    pub async fn request_with_timeout<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
        timeout: Duration,
    ) -> Result<R, RequestError> {
        let (result, kept) = self
            .inner
            .exchange
            .ask(&self.flow, &self.inner.request_id, method, &params, timeout)
            .await?;
        if let Some(kept) = kept {
            lock(&self.inner.log).push(kept);
        }
        Ok(result)
    }

    /// Every sampling and elicitation answer of this call so far, in order.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// Reports how many sampling/elicitation answers this call has had.
    /// #[mcp_tool]
    /// async fn answers(ctx: &Ctx) -> String {
    ///     ctx.exchange_log().len().to_string()
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(answers).build().unwrap();
    /// ```
    pub fn exchange_log(&self) -> Vec<LoggedExchange> {
        lock(&self.inner.log)
            .iter()
            .map(|kept| LoggedExchange {
                method: kept.method.to_owned(),
                params: serde_json::from_str(&kept.params).unwrap_or(Value::Null),
                result: serde_json::from_str(kept.result.get()).unwrap_or(Value::Null),
            })
            .collect()
    }
}

//! What a handler tells the client without waiting for an answer: log messages, progress,
//! other notifications, and closing the request's SSE stream.

use super::Ctx;
use crate::protocol::{
    LoggingLevel, LoggingMessageNotificationParams, ProgressNotificationParams, methods,
};
use serde::Serialize;
use serde_json::Value;

impl<K> Ctx<K> {
    /// Sends `notifications/message` at `level` if the client's log level lets it through.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool, protocol::LoggingLevel};
    /// /// Logs a line, then answers.
    /// #[mcp_tool]
    /// async fn work(ctx: &Ctx) -> String {
    ///     ctx.log(LoggingLevel::Info, "starting").await;
    ///     "done".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(work).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.set_level(LoggingLevel::Debug).await?;
    /// client.call_tool("work", serde_json::json!({})).await?;
    /// let note = notes.recv().await?;
    /// assert_eq!(note.method, "notifications/message");
    /// assert_eq!(note.params.unwrap()["data"], "starting");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.log_to(level, None, data).await
    }

    /// [`Ctx::log`] with a logger name.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool, protocol::LoggingLevel};
    /// /// Logs as the `db` logger.
    /// #[mcp_tool]
    /// async fn query(ctx: &Ctx) -> String {
    ///     ctx.log_to(LoggingLevel::Warning, Some("db"), serde_json::json!({"slow_ms": 250})).await;
    ///     "rows".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(query).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.set_level(LoggingLevel::Info).await?;
    /// client.call_tool("query", serde_json::json!({})).await?;
    /// let params = notes.recv().await?.params.unwrap();
    /// assert_eq!((params["logger"].as_str(), &params["data"]["slow_ms"]), (Some("db"), &serde_json::json!(250)));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn log_to(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        if !self.inner.session.log_enabled(level) {
            return;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data: serde_json::to_value(data).unwrap_or(Value::Null),
            ..Default::default()
        };
        self.notify(methods::MESSAGE, params).await;
    }

    /// Sends `notifications/progress` if the client asked for progress (a no-op otherwise).
    /// Each value must be greater than the last one sent for this request (the spec's
    /// MUST): one that is not, or is not finite, is dropped.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool, protocol::ProgressToken};
    /// /// Reports half-way progress (the repeated and the smaller value are not sent).
    /// #[mcp_tool]
    /// async fn copy(ctx: &Ctx) -> String {
    ///     ctx.progress(50.0, Some(100.0), Some("half-way")).await;
    ///     ctx.progress(50.0, Some(100.0), None).await;
    ///     ctx.progress(10.0, Some(100.0), None).await;
    ///     ctx.progress(100.0, Some(100.0), Some("done")).await;
    ///     "copied".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(copy).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// let token = ProgressToken::String("copy-1".into());
    /// client.call_tool_with_progress("copy", serde_json::json!({}), token).await?;
    /// let params = notes.recv().await?.params.unwrap();
    /// assert_eq!(params["progressToken"], "copy-1");
    /// assert_eq!(params["progress"], 50.0);
    /// assert_eq!(notes.recv().await?.params.unwrap()["progress"], 100.0);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = self.inner.progress_token.clone() else {
            return;
        };
        {
            // Progress MUST increase with each notification: a value that does not (or is
            // not a number) is dropped rather than sent.
            let mut last = self
                .inner
                .last_progress
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !progress.is_finite() || last.is_some_and(|last| progress <= last) {
                tracing::debug!(progress, last = ?*last, "progress that does not increase is not sent");
                return;
            }
            *last = Some(progress);
        }
        let params = ProgressNotificationParams {
            progress_token: token,
            progress,
            total,
            message: message.map(str::to_owned),
            meta: None,
        };
        self.notify(methods::PROGRESS, params).await;
    }

    /// Sends a notification on this request's stream, waiting while the session's outbound
    /// queue is full (the client reads slowly).
    ///
    /// In a task, the notification carries the task's `related-task` metadata.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// Sends a custom notification.
    /// #[mcp_tool]
    /// async fn poke(ctx: &Ctx) -> String {
    ///     ctx.notify("notifications/example/poked", serde_json::json!({"n": 1})).await;
    ///     "poked".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(poke).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.call_tool("poke", serde_json::json!({})).await?;
    /// assert_eq!(notes.recv().await?.method, "notifications/example/poked");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn notify(&self, method: &str, params: impl Serialize) {
        let params = serde_json::to_value(params).ok();
        self.inner
            .exchange
            .notify(&self.inner.request_id, method, params)
            .await;
    }

    /// Closes this request's SSE stream on Streamable HTTP so the client reconnects with
    /// `Last-Event-ID` (SEP-1699). Messages sent meanwhile are kept for the resumed stream.
    /// Other transports ignore it.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// A long call that lets its HTTP client reconnect instead of holding the stream open.
    /// #[mcp_tool]
    /// async fn long(ctx: &Ctx) -> String {
    ///     ctx.close_sse_stream(); // the client resumes with `Last-Event-ID`
    ///     "finished".into()
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(long).build().unwrap();
    /// ```
    pub fn close_sse_stream(&self) {
        self.inner.exchange.close_stream(&self.inner.request_id);
    }
}

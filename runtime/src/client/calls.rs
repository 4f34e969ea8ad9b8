//! The typed calls of a [`Client`]: tools, tasks, prompts, resources and their
//! subscriptions, logging level and completion.

use super::{
    Client, SUBSCRIPTIONS_ACKNOWLEDGED, SUBSCRIPTIONS_LISTEN, Subscription, SubscriptionFilter,
    headers,
};
use crate::peer::RequestError;
use crate::protocol::*;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::sync::broadcast;

impl Client {
    /// `tools/list` (one page). In the 2026-07-28 era, tools whose `x-mcp-header`
    /// annotations are invalid (SEP-2243) are left out, with a warning in the log.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_tools(None).await?;
    /// assert_eq!(page.tools[0].name, "echo");
    /// assert!(page.next_cursor.is_none()); // one page
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_tools(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, RequestError> {
        let mut result: ListToolsResult = self
            .request(
                methods::TOOLS_LIST,
                PaginatedRequestParams {
                    cursor,
                    ..Default::default()
                },
            )
            .await?;
        if self.stamp.is_some() {
            result.tools.retain(|tool| {
                let schema = Value::Object(tool.input_schema.clone());
                match headers::header_params(&schema) {
                    Ok(_) => true,
                    Err(why) => {
                        tracing::warn!(tool = %tool.name, "tool definition rejected: {why}");
                        false
                    }
                }
            });
        }
        Ok(result)
    }

    /// `tools/call` with JSON arguments. If the server runs it as a task (tasks
    /// extension), the task is followed to its end (see [`TaskHandle::result`](super::TaskHandle::result)).
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let result = client.call_tool("echo", serde_json::json!({"text": "hi"})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("hi"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, RequestError> {
        self.call_tool_value(json!({ "name": name, "arguments": arguments }))
            .await
    }

    /// `tools/call` asking for progress notifications with `token`.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// use tracksuit::protocol::ProgressToken;
    /// let result = client
    ///     .call_tool_with_progress("echo", serde_json::json!({"text": "hi"}), ProgressToken::Number(1))
    ///     .await?;
    /// assert_eq!(result.content[0].as_text(), Some("hi"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        token: ProgressToken,
    ) -> Result<CallToolResult, RequestError> {
        let params =
            json!({ "name": name, "arguments": arguments, "_meta": { "progressToken": token } });
        self.call_tool_value(params).await
    }

    /// 2025-11-25 `tools/call` as a task (`task: {ttl}`), the wire call: the server answers
    /// at once with the task; follow it with [`Client::get_task`] and
    /// [`Client::task_result`]. [`Client::call_tool_task`] does this in either era.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<u64>,
    ) -> Result<CreateTaskResult, RequestError> {
        let task = TaskMetadata { ttl };
        self.request(
            methods::TOOLS_CALL,
            json!({ "name": name, "arguments": arguments, "task": task }),
        )
        .await
    }

    /// `tasks/get`.
    pub async fn get_task(&self, task_id: &str) -> Result<GetTaskResult, RequestError> {
        self.request(methods::TASKS_GET, json!({ "taskId": task_id }))
            .await
    }

    /// `tasks/result` for a tool task: waits until the task finishes and returns what the
    /// `tools/call` would have (a JSON-RPC error comes back as [`RequestError::Peer`]).
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, RequestError> {
        self.request(methods::TASKS_RESULT, json!({ "taskId": task_id }))
            .await
    }

    /// `tasks/list` (one page).
    pub async fn list_tasks(
        &self,
        cursor: Option<String>,
    ) -> Result<ListTasksResult, RequestError> {
        self.request(
            methods::TASKS_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<GetTaskResult, RequestError> {
        self.request(methods::TASKS_CANCEL, json!({ "taskId": task_id }))
            .await
    }

    /// `prompts/list` (one page).
    ///
    /// ```
    /// use tracksuit::{PromptFn, Server, client::Client, protocol::{GetPromptResult, Prompt, PromptMessage}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let greet = PromptFn::new(Prompt::new("greet"), |_ctx, args| async move {
    ///     let name = args.get("name").cloned().unwrap_or_default();
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text(format!("Say hello to {name}"))]))
    /// });
    /// let server = Server::new(tracksuit::crate_info!()).prompt(greet).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_prompts(None).await?;
    /// assert_eq!(page.prompts[0].name, "greet");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
    ) -> Result<ListPromptsResult, RequestError> {
        self.request(
            methods::PROMPTS_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `prompts/get`.
    ///
    /// ```
    /// use tracksuit::{PromptFn, Server, client::Client, protocol::{GetPromptResult, Prompt, PromptMessage}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let greet = PromptFn::new(Prompt::new("greet"), |_ctx, args| async move {
    ///     let name = args.get("name").cloned().unwrap_or_default();
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text(format!("Say hello to {name}"))]))
    /// });
    /// let server = Server::new(tracksuit::crate_info!()).prompt(greet).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let prompt = client.get_prompt("greet", serde_json::json!({"name": "Ada"})).await?;
    /// assert_eq!(serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"], "Say hello to Ada");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, RequestError> {
        self.request(
            methods::PROMPTS_GET,
            json!({ "name": name, "arguments": arguments }),
        )
        .await
    }

    /// `resources/list` (one page).
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_resources(None).await?;
    /// assert_eq!(page.resources[0].uri, "mem://motd");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, RequestError> {
        self.request(
            methods::RESOURCES_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `resources/templates/list` (one page).
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_resource_templates(None).await?;
    /// assert_eq!(page.resource_templates[0].uri_template, "mem://items/{id}");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, RequestError> {
        self.request(
            methods::RESOURCES_TEMPLATES_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `resources/read`.
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let read = client.read_resource("mem://items/7").await?;
    /// assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "item 7");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, RequestError> {
        self.request(methods::RESOURCES_READ, json!({ "uri": uri }))
            .await
    }

    /// `resources/subscribe`.
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let handle = server.clone();
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.subscribe("mem://motd").await?;
    /// handle.notify_resource_updated("mem://motd");
    /// let note = notes.recv().await?;
    /// assert_eq!(note.method, "notifications/resources/updated");
    /// assert_eq!(note.params.unwrap()["uri"], "mem://motd");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn subscribe(&self, uri: &str) -> Result<(), RequestError> {
        let _: Value = self
            .request(methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri }))
            .await?;
        Ok(())
    }

    /// `resources/unsubscribe` (2025-11-25).
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// client.subscribe("mem://motd").await?;
    /// client.unsubscribe("mem://motd").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), RequestError> {
        let _: Value = self
            .request(methods::RESOURCES_UNSUBSCRIBE, json!({ "uri": uri }))
            .await?;
        Ok(())
    }

    /// Subscribes to list changes and resource updates, in either era.
    ///
    /// 2026-07-28: a `subscriptions/listen` request stays open (until the subscription is
    /// dropped) and this returns once the server acknowledged it. 2025-11-25: each resource
    /// is subscribed with `resources/subscribe`; list changes arrive on the session.
    pub async fn subscribe_to(
        &self,
        filter: SubscriptionFilter,
    ) -> Result<Subscription, RequestError> {
        let mut notifications = self.notifications.subscribe();
        let end = tokio_util::sync::CancellationToken::new();
        let Some(stamp) = &self.stamp else {
            for uri in filter.resources() {
                self.subscribe(uri).await?;
            }
            let (wire, uris, timeout) = (self.wire(), filter.resources().to_vec(), self.timeout);
            let ended = end.clone();
            tokio::spawn(async move {
                ended.cancelled().await;
                for uri in uris {
                    let params = json!({ "uri": uri });
                    let _ = wire
                        .send(methods::RESOURCES_UNSUBSCRIBE, params, 0, timeout)
                        .await;
                }
            });
            return Ok(Subscription {
                filter,
                notifications,
                acknowledged: None,
                _end: Some(end.drop_guard()),
            });
        };
        let params = stamp.stamp(&json!({ "notifications": filter }));
        let (wire, ended) = (self.wire(), end.clone());
        let (failed_tx, mut failed) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            // The listen request never completes on its own; dropping it cancels it.
            let listen = wire.send(SUBSCRIPTIONS_LISTEN, params, 0, Duration::MAX);
            tokio::select! {
                _ = ended.cancelled() => {}
                outcome = listen => { let _ = failed_tx.send(outcome); }
            }
        });
        let acknowledged = async {
            loop {
                match notifications.recv().await {
                    Ok(n) if n.method == SUBSCRIPTIONS_ACKNOWLEDGED => return Ok(n.params),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Err(RequestError::Closed),
                }
            }
        };
        let ack = tokio::select! {
            ack = tokio::time::timeout(self.timeout, acknowledged) => {
                ack.map_err(|_| RequestError::Timeout(self.timeout))??
            }
            outcome = &mut failed => {
                return Err(match outcome {
                    Ok(Err(e)) => e,
                    _ => RequestError::Closed,
                });
            }
        };
        Ok(Subscription {
            filter,
            notifications,
            acknowledged: ack,
            _end: Some(end.drop_guard()),
        })
    }

    /// `logging/setLevel`; in the 2026-07-28 era, the log level every later request names
    /// in its `_meta`.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// client.set_level(tracksuit::protocol::LoggingLevel::Warning).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_level(&self, level: LoggingLevel) -> Result<(), RequestError> {
        if let Some(stamp) = &self.stamp {
            *stamp.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
            return Ok(());
        }
        let _: Value = self
            .request(methods::LOGGING_SET_LEVEL, json!({ "level": level }))
            .await?;
        Ok(())
    }

    /// `completion/complete`.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
    ) -> Result<Value, RequestError> {
        self.request(
            methods::COMPLETION_COMPLETE,
            json!({ "ref": reference, "argument": { "name": argument, "value": value } }),
        )
        .await
    }
}

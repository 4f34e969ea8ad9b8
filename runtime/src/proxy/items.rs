//! The handlers a proxied item is registered with: each forwards its request to the
//! remote (see [`relay`](super::relay)) and decodes the remote's answer.

use super::{Remote, relay::relayed};
use crate::authoring::ToolError;
use crate::context::Ctx;
use crate::protocol::{
    CallToolResult, ErrorObject, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool, methods,
};
use crate::server::{
    PromptHandler, ResourceHandler, ResourceTemplateHandler, ToolHandler, UriTemplate,
};
use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Members a 2026-07-28 result carries for its era, which our server writes itself.
const ERA_MEMBERS: [&str; 2] = ["resultType", "serverInfo"];

/// The remote's result as `T`, without the members our own server adds.
pub(super) fn decode<T: DeserializeOwned>(mut value: Value) -> Result<T, ErrorObject> {
    if let Some(object) = value.as_object_mut() {
        for member in ERA_MEMBERS {
            object.remove(member);
        }
    }
    serde_json::from_value(value)
        .map_err(|e| ErrorObject::internal(format!("the remote's result is malformed: {e}")))
}

/// A remote tool, published under `descriptor.name`, called as `remote_name`.
pub(super) struct RemoteTool {
    pub(super) remote: Remote,
    pub(super) descriptor: Tool,
    pub(super) remote_name: String,
}

impl ToolHandler for RemoteTool {
    fn descriptor(&self) -> Tool {
        self.descriptor.clone()
    }

    fn call<'a>(
        &'a self,
        ctx: Ctx,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
        Box::pin(async move {
            let params = json!({ "name": self.remote_name, "arguments": arguments });
            // A remote JSON-RPC error stays one (code and message); an `isError` result
            // is a result and stays one.
            let value = relayed(&self.remote, &ctx, methods::TOOLS_CALL, params)
                .await
                .map_err(ToolError::Protocol)?;
            decode(value).map_err(ToolError::Protocol)
        })
    }
}

/// A remote prompt, published under `descriptor.name`.
pub(super) struct RemotePrompt {
    pub(super) remote: Remote,
    pub(super) descriptor: Prompt,
    pub(super) remote_name: String,
}

impl PromptHandler for RemotePrompt {
    fn descriptor(&self) -> Prompt {
        self.descriptor.clone()
    }

    fn get<'a>(
        &'a self,
        ctx: Ctx,
        arguments: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<GetPromptResult, ErrorObject>> {
        Box::pin(async move {
            let params = json!({ "name": self.remote_name, "arguments": arguments });
            decode(relayed(&self.remote, &ctx, methods::PROMPTS_GET, params).await?)
        })
    }

    fn complete<'a>(
        &'a self,
        _ctx: &'a Ctx,
        argument: &'a str,
        value: &'a str,
        _context: &'a HashMap<String, String>,
    ) -> BoxFuture<'a, Vec<String>> {
        let reference = json!({ "type": "ref/prompt", "name": self.remote_name });
        Box::pin(complete(&self.remote, reference, argument, value))
    }
}

/// Completion values the remote offers; none when it offers none or fails.
async fn complete(remote: &Remote, reference: Value, argument: &str, value: &str) -> Vec<String> {
    let answer = remote.client().complete(reference, argument, value).await;
    let values = answer
        .ok()
        .and_then(|a| a.pointer("/completion/values").cloned());
    values
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

/// A remote resource (its URI kept).
pub(super) struct RemoteResource {
    pub(super) remote: Remote,
    pub(super) descriptor: Resource,
}

impl ResourceHandler for RemoteResource {
    fn descriptor(&self) -> Resource {
        self.descriptor.clone()
    }

    fn read<'a>(&'a self, ctx: Ctx) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>> {
        Box::pin(async move {
            let params = json!({ "uri": self.descriptor.uri });
            decode(relayed(&self.remote, &ctx, methods::RESOURCES_READ, params).await?)
        })
    }
}

/// A remote resource template (its URI template kept).
pub(super) struct RemoteTemplate {
    pub(super) remote: Remote,
    pub(super) descriptor: ResourceTemplate,
    pub(super) template: UriTemplate,
}

impl ResourceTemplateHandler for RemoteTemplate {
    fn descriptor(&self) -> ResourceTemplate {
        self.descriptor.clone()
    }

    fn template(&self) -> &UriTemplate {
        &self.template
    }

    fn read<'a>(
        &'a self,
        ctx: Ctx,
        uri: &'a str,
        _vars: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>> {
        Box::pin(async move {
            let params = json!({ "uri": uri });
            decode(relayed(&self.remote, &ctx, methods::RESOURCES_READ, params).await?)
        })
    }

    fn complete<'a>(
        &'a self,
        _ctx: &'a Ctx,
        variable: &'a str,
        value: &'a str,
        _context: &'a HashMap<String, String>,
    ) -> BoxFuture<'a, Vec<String>> {
        let reference = json!({ "type": "ref/resource", "uri": self.descriptor.uri_template });
        Box::pin(complete(&self.remote, reference, variable, value))
    }
}

//! The calls a request makes on the registries: `tools/call` (directly or as a task),
//! `prompts/get`, `resources/read` and `completion/complete`, with the scope check every
//! way in shares. The method table (`table.rs`) calls these for both eras.

use super::answer::Answer;
use super::request_scope::RequestScope;
use crate::context::{Ctx, Exchange};
use crate::peer::panic_message;
use crate::peer::sync::read;
use crate::protocol::*;
use futures::FutureExt;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// What a `tools/call` runs: the tool now, or the tool as a task with its time to live.
enum ToolRun {
    Now(Arc<dyn super::ToolHandler>, JsonObject),
    Task(Arc<dyn super::ToolHandler>, JsonObject, Option<u64>),
}

/// The spec caps completion values at 100 per response.
const MAX_COMPLETIONS: usize = 100;

impl RequestScope {
    /// Of the tool named `name`: whether it gathers input before it becomes a task
    /// ([`ToolHandler::input_before_task`](super::ToolHandler::input_before_task)), and its
    /// task support.
    /// `None` for an unknown tool, or one `caller` may not see.
    pub(super) fn task_support(
        &self,
        name: &str,
        caller: &crate::caller::Caller,
    ) -> Option<(bool, TaskSupport)> {
        self.lookup(&read(&self.server().inner.tools), name, caller)
            .map(|entry| (entry.item.input_before_task(), entry.task_support()))
    }

    pub(super) async fn call_tool(
        &self,
        ctx: Ctx,
        params: Option<Value>,
    ) -> Result<Answer, ErrorObject> {
        // Decided before the first await, so the future keeps only what runs across it
        // (the request's name, params and scopes were 200 bytes of every call's future).
        match self.tool_to_run(&ctx, params)? {
            // Boxed: the task path's state would otherwise enlarge every call's future.
            ToolRun::Task(tool, arguments, ttl) => {
                Box::pin(self.start_tool_task(tool, ctx, arguments, ttl)).await
            }
            ToolRun::Now(tool, arguments) => run_tool(tool, ctx, arguments)
                .await
                .map(|result| Answer::Tool(Box::new(result))),
        }
    }

    /// The tool a `tools/call` runs and its arguments, once its params are read, the tool
    /// found and visible, its scopes held and its task support agreeing with the call.
    fn tool_to_run(&self, ctx: &Ctx, params: Option<Value>) -> Result<ToolRun, ErrorObject> {
        // The arguments map is taken out as it is: decoding it into `CallToolRequestParams`
        // would rebuild it entry by entry (re-hashing every key) only to hand it on. `_meta`
        // is dropped for the same reason (on 2026-07-28 it carries the client's capabilities
        // and identity): what it says reached the context already, and `p.meta` is unread.
        let mut params = params;
        let arguments = match params.as_mut().and_then(Value::as_object_mut) {
            Some(map) => {
                map.remove("_meta");
                match map.remove("arguments") {
                    None | Some(Value::Null) => None,
                    Some(Value::Object(arguments)) => Some(arguments),
                    Some(_) => {
                        return Err(ErrorObject::invalid_params("`arguments` must be an object"));
                    }
                }
            }
            None => None,
        };
        let mut p: CallToolRequestParams = decode(params)?;
        p.arguments = arguments;
        // Only the handler and its task support leave the lock: cloning the descriptor
        // (schemas included) per call was a tenth of the in-memory call cost.
        let found = {
            let tools = read(&self.server().inner.tools);
            self.lookup(&tools, &p.name, ctx.caller()).map(|entry| {
                (
                    entry.item.clone(),
                    entry.task_support(),
                    entry.scopes.clone(),
                )
            })
        };
        let Some((tool, support, scopes)) = found else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown tool: {}",
                ErrorObject::quote(&p.name)
            )));
        };
        let arguments = p.arguments.unwrap_or_default();
        let required = scopes.of(|| Cow::Borrowed(&arguments))?;
        check_scopes(ctx, "tool", &p.name, &required)?;
        match (p.task, support) {
            (Some(_), TaskSupport::Forbidden) => Err(ErrorObject::unavailable(format!(
                "tool `{}` cannot run as a task (its execution.taskSupport is \"forbidden\"); call it without `task`",
                p.name
            ))),
            // A modern request checked the tasks extension itself.
            (None, TaskSupport::Required) if ctx.rounds().is_none() => {
                Err(ErrorObject::unavailable(format!(
                    "tool `{}` must run as a task (its execution.taskSupport is \"required\"); add `task` to the params",
                    p.name
                )))
            }
            (Some(task), _) => Ok(ToolRun::Task(tool, arguments, task.ttl)),
            (None, _) => Ok(ToolRun::Now(tool, arguments)),
        }
    }

    /// `tools/call` with `task`: the tool starts as a task, and the call answers with it.
    async fn start_tool_task(
        &self,
        tool: Arc<dyn super::ToolHandler>,
        ctx: Ctx,
        arguments: JsonObject,
        ttl: Option<u64>,
    ) -> Result<Answer, ErrorObject> {
        let progress = ctx.progress_token().cloned();
        let origin = ctx.request_id().clone();
        let session = self.clone();
        let caller = ctx.caller().clone();
        let task = self
            .server()
            .inner
            .tasks
            .start(
                self.peer(),
                origin.clone(),
                methods::TOOLS_CALL,
                ttl,
                self.task_owner(&caller),
                move |live, cancel| {
                    let exchange = Exchange::task(session.peer().clone(), live);
                    let ctx = Ctx::new(
                        session.for_context(),
                        exchange,
                        origin,
                        progress,
                        cancel,
                        caller,
                    );
                    async move { run_tool(tool, ctx, arguments).await.map(Value::from) }
                },
            )
            .await?;
        encode(CreateTaskResult::new(task)).map(Answer::Tree)
    }

    pub(super) async fn get_prompt(
        &self,
        ctx: Ctx,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let p: GetPromptRequestParams = decode(params)?;
        let entry = {
            let prompts = read(&self.server().inner.prompts);
            self.lookup(&prompts, &p.name, ctx.caller()).cloned()
        };
        let Some(entry) = entry else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown prompt: {}",
                ErrorObject::quote(&p.name)
            )));
        };
        let args: HashMap<String, String> = p.arguments.unwrap_or_default().into_iter().collect();
        let required = entry.scopes.of(|| {
            let strings = args
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())));
            Cow::Owned(strings.collect())
        })?;
        check_scopes(&ctx, "prompt", &p.name, &required)?;
        for arg in entry.descriptor.arguments.iter().flatten() {
            if arg.required == Some(true) && !args.contains_key(&arg.name) {
                return Err(ErrorObject::invalid_params(format!(
                    "missing required argument `{}` for prompt `{}`",
                    arg.name, p.name
                )));
            }
        }
        encode(entry.item.get(ctx, args).await?)
    }

    pub(super) async fn read_resource(
        &self,
        ctx: Ctx,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let p: ReadResourceRequestParams = decode(params)?;
        let fixed = {
            let resources = read(&self.server().inner.resources);
            self.lookup(&resources, &p.uri, ctx.caller())
                .map(|e| (e.item.clone(), e.scopes.clone()))
        };
        if let Some((resource, scopes)) = fixed {
            check_scopes(&ctx, "resource", &p.uri, scopes.fixed())?;
            return encode(resource.read(ctx).await?);
        }
        let matched = read(&self.server().inner.templates).values().find_map(|e| {
            if !self.visible(e, ctx.caller()) {
                return None;
            }
            e.item
                .template()
                .matches(&p.uri)
                .map(|vars| (e.item.clone(), vars, e.scopes.clone()))
        });
        match matched {
            Some((template, vars, scopes)) => {
                let required = scopes.of(|| Cow::Owned(super::scopes::variables(vars.clone())))?;
                check_scopes(&ctx, "resource", &p.uri, &required)?;
                encode(template.read(ctx, &p.uri, vars).await?)
            }
            None => Err(ErrorObject::resource_not_found(&p.uri)),
        }
    }

    /// `completion/complete`: the prompt's or template's completer, given the request's
    /// context (so it reaches the app state).
    pub(super) async fn complete(
        &self,
        ctx: &Ctx,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let p: CompleteRequestParams = decode(params)?;
        let context: HashMap<String, String> = p
            .context
            .and_then(|c| c.arguments)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let (name, value) = (&p.argument.name, &p.argument.value);
        let values = match &p.reference {
            CompletionReference::Prompt(r) => {
                let prompt = {
                    let prompts = read(&self.server().inner.prompts);
                    self.lookup(&prompts, &r.name, ctx.caller())
                        .map(|e| e.item.clone())
                };
                let prompt = prompt.ok_or_else(|| {
                    ErrorObject::invalid_params(format!(
                        "Unknown prompt: {}",
                        ErrorObject::quote(&r.name)
                    ))
                })?;
                prompt.complete(ctx, name, value, &context).await
            }
            CompletionReference::Resource(r) => {
                let template = {
                    let templates = read(&self.server().inner.templates);
                    self.lookup(&templates, &r.uri, ctx.caller())
                        .map(|e| e.item.clone())
                };
                match template {
                    Some(t) => t.complete(ctx, name, value, &context).await,
                    None => Vec::new(),
                }
            }
        };
        let total = values.len();
        let completion = Completion {
            has_more: Some(total > MAX_COMPLETIONS),
            total: Some(total as u64),
            values: values.into_iter().take(MAX_COMPLETIONS).collect(),
        };
        encode(CompleteResult {
            completion,
            meta: None,
        })
    }
}

/// Runs a tool to the answer `tools/call` gives: execution errors and panics become
/// `isError` results, protocol errors stay JSON-RPC errors.
async fn run_tool(
    tool: Arc<dyn super::ToolHandler>,
    ctx: Ctx,
    arguments: JsonObject,
) -> Result<CallToolResult, ErrorObject> {
    let outcome = AssertUnwindSafe(tool.call(ctx, arguments))
        .catch_unwind()
        .await;
    let result = match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(crate::authoring::ToolError::Execution(message))) => {
            CallToolResult::error_text(message)
        }
        Ok(Err(crate::authoring::ToolError::Protocol(error))) => return Err(error),
        Err(panic) => CallToolResult::error_text(panic_message(&panic)),
    };
    Ok(result)
}

/// Refuses a caller whose principal lacks one of `required` (a request without a principal
/// lacks them all): `-32600` naming the scopes, in `data.requiredScopes` too. Over HTTP the
/// host refuses such a request earlier, with `403` and an `insufficient_scope` challenge;
/// this is the same rule for every other way in (stdio, tasks).
pub(crate) fn check_scopes(
    ctx: &Ctx,
    kind: &str,
    name: &str,
    required: &[String],
) -> Result<(), ErrorObject> {
    let missing = ctx.caller().missing_scopes(required);
    if missing.is_empty() {
        return Ok(());
    }
    Err(ErrorObject::invalid_request(format!(
        "Forbidden: {kind} {} requires the scope(s) {}",
        ErrorObject::quote(name),
        missing.join(" ")
    ))
    .with_data(json!({ "requiredScopes": required, "missingScopes": missing })))
}

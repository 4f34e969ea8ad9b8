//! Registering what the remote lists on our server, and keeping it in step.

use super::items::{RemotePrompt, RemoteResource, RemoteTemplate, RemoteTool};
use super::{ProxyError, Remote};
use crate::client::SubscriptionFilter;
use crate::peer::RequestError;
use crate::peer::sync::lock;
use crate::protocol::{METHOD_NOT_FOUND, Prompt, Resource, ResourceTemplate, Tool, methods};
use crate::server::{ServerError, ServerHandle, UriTemplate};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The most pages one list may take (a remote whose cursors never end is cut off).
const MAX_PAGES: usize = 1000;

/// How a remote's items are registered.
///
/// ```
/// use tracksuit::proxy::Attach;
/// // Tools and prompts as `billing_<name>`; resource URIs are kept as they are.
/// let options = Attach::default().prefix("billing").subscribe_resources();
/// assert_eq!(options.local_name("refund"), "billing_refund");
/// assert_eq!(Attach::default().separator(".").prefix("b").local_name("x"), "b.x");
/// ```
#[derive(Debug, Clone)]
pub struct Attach {
    prefix: Option<String>,
    separator: String,
    subscribe: bool,
}

impl Default for Attach {
    fn default() -> Self {
        Attach {
            prefix: None,
            separator: "_".into(),
            subscribe: false,
        }
    }
}

impl Attach {
    /// Publish the remote's tools and prompts as `{prefix}{separator}{name}` (resources
    /// and templates keep their URIs).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// What goes between prefix and name (default `_`).
    pub fn separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }

    /// Subscribe to every resource the remote lists when attached, so its
    /// `notifications/resources/updated` reach our clients subscribed to that URI.
    pub fn subscribe_resources(mut self) -> Self {
        self.subscribe = true;
        self
    }

    /// The name a remote tool or prompt called `name` is published under.
    pub fn local_name(&self, name: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}{}{name}", self.separator),
            None => name.to_owned(),
        }
    }
}

/// What is registered, by local key, as the descriptors were when registered.
#[derive(Default)]
struct Registered {
    tools: HashMap<String, Value>,
    prompts: HashMap<String, Value>,
    resources: HashMap<String, Value>,
    templates: HashMap<String, Value>,
}

struct State {
    remote: Remote,
    server: ServerHandle,
    options: Attach,
    registered: Mutex<Registered>,
}

/// A remote attached to a server: its items registered, and a task keeping them in step
/// with the remote's `list_changed` notifications (it ends when the remote goes away).
pub struct Attached {
    state: Arc<State>,
    watcher: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Attached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attached")
            .field("remote", &self.state.remote)
            .finish_non_exhaustive()
    }
}

impl Attached {
    /// The local names of the proxied tools.
    pub fn tool_names(&self) -> Vec<String> {
        lock(&self.state.registered).tools.keys().cloned().collect()
    }

    /// Lists the remote again and brings the registrations in step (what a
    /// `list_changed` notification does; also after reconnecting).
    pub async fn resync(&self) -> Result<(), ProxyError> {
        self.state.sync_all().await
    }

    /// Stops following the remote and removes its items from the server.
    pub fn detach(self) {
        self.watcher.abort();
        let registered = std::mem::take(&mut *lock(&self.state.registered));
        let server = &self.state.server;
        for name in registered.tools.keys() {
            server.remove_tool(name);
        }
        for name in registered.prompts.keys() {
            server.remove_prompt(name);
        }
        for uri in registered.resources.keys() {
            server.remove_resource(uri);
        }
        for template in registered.templates.keys() {
            server.remove_resource_template(template);
        }
    }
}

pub(super) async fn attach(
    remote: Remote,
    server: ServerHandle,
    options: Attach,
) -> Result<Attached, ProxyError> {
    let state = Arc::new(State {
        remote,
        server,
        options,
        registered: Mutex::default(),
    });
    state.sync_all().await?;
    let mut filter = SubscriptionFilter::default()
        .tools_list_changed()
        .prompts_list_changed()
        .resources_list_changed();
    if state.options.subscribe {
        for uri in lock(&state.registered).resources.keys() {
            filter = filter.resource(uri.clone());
        }
    }
    let subscription = state.remote.client().subscribe_to(filter).await?;
    let watcher = tokio::spawn(watch(state.clone(), subscription));
    Ok(Attached { state, watcher })
}

/// Follows the remote's notifications until it goes away.
async fn watch(state: Arc<State>, mut subscription: crate::client::Subscription) {
    let client = state.remote.client();
    loop {
        let note = tokio::select! {
            note = subscription.next() => note,
            _ = client.closed() => None,
        };
        let Some(note) = note else { break };
        let synced = match note.method.as_str() {
            methods::TOOLS_LIST_CHANGED => state.sync_tools().await,
            methods::PROMPTS_LIST_CHANGED => state.sync_prompts().await,
            methods::RESOURCES_LIST_CHANGED => state.sync_resources().await,
            methods::RESOURCES_UPDATED => {
                let uri = note.params.as_ref().and_then(|p| p.get("uri"));
                if let Some(uri) = uri.and_then(Value::as_str) {
                    state.server.notify_resource_updated(uri);
                }
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(e) = synced {
            tracing::warn!(
                remote = state.remote.name(),
                "re-listing the remote failed: {e}"
            );
        }
    }
    tracing::warn!(
        remote = state.remote.name(),
        "the remote MCP server went away: its items stay registered, and calls fail until it is reconnected"
    );
}

impl State {
    async fn sync_all(&self) -> Result<(), ProxyError> {
        self.sync_tools().await?;
        self.sync_prompts().await?;
        self.sync_resources().await
    }

    async fn sync_tools(&self) -> Result<(), ProxyError> {
        let client = self.remote.client();
        let tools = all_pages(|cursor| async move {
            let page = client.list_tools(cursor).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await?;
        let wanted = tools.into_iter().map(|tool: Tool| {
            let mut descriptor = tool.clone();
            descriptor.name = self.options.local_name(&tool.name);
            (descriptor.name.clone(), (descriptor, tool.name))
        });
        let mut registered = lock(&self.registered);
        reconcile(
            &mut registered.tools,
            wanted,
            |(d, _)| d,
            |name| self.server.remove_tool(name),
            |(descriptor, remote_name)| {
                let remote = self.remote.clone();
                self.server.add_tool(RemoteTool {
                    remote,
                    descriptor,
                    remote_name,
                })
            },
        )?;
        Ok(())
    }

    async fn sync_prompts(&self) -> Result<(), ProxyError> {
        let client = self.remote.client();
        let prompts = all_pages(|cursor| async move {
            let page = client.list_prompts(cursor).await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await?;
        let wanted = prompts.into_iter().map(|prompt: Prompt| {
            let mut descriptor = prompt.clone();
            descriptor.name = self.options.local_name(&prompt.name);
            (descriptor.name.clone(), (descriptor, prompt.name))
        });
        let mut registered = lock(&self.registered);
        reconcile(
            &mut registered.prompts,
            wanted,
            |(d, _)| d,
            |name| self.server.remove_prompt(name),
            |(descriptor, remote_name)| {
                let remote = self.remote.clone();
                self.server.add_prompt(RemotePrompt {
                    remote,
                    descriptor,
                    remote_name,
                })
            },
        )?;
        Ok(())
    }

    async fn sync_resources(&self) -> Result<(), ProxyError> {
        let client = self.remote.client();
        let resources = all_pages(|cursor| async move {
            let page = client.list_resources(cursor).await?;
            Ok((page.resources, page.next_cursor))
        })
        .await?;
        let templates = all_pages(|cursor| async move {
            let page = client.list_resource_templates(cursor).await?;
            Ok((page.resource_templates, page.next_cursor))
        })
        .await?;
        let mut registered = lock(&self.registered);
        let wanted = resources.into_iter().map(|r: Resource| (r.uri.clone(), r));
        reconcile(
            &mut registered.resources,
            wanted,
            |d| d,
            |uri| self.server.remove_resource(uri),
            |descriptor| {
                let remote = self.remote.clone();
                self.server
                    .add_resource(RemoteResource { remote, descriptor })
            },
        )?;
        let wanted = templates.into_iter().filter_map(
            |t: ResourceTemplate| match UriTemplate::parse(&t.uri_template) {
                Ok(template) => Some((t.uri_template.clone(), (t, template))),
                Err(why) => {
                    tracing::warn!(template = %t.uri_template, "remote template skipped: {why}");
                    None
                }
            },
        );
        reconcile(
            &mut registered.templates,
            wanted,
            |(d, _)| d,
            |key| self.server.remove_resource_template(key),
            |(descriptor, template)| {
                let remote = self.remote.clone();
                let handler = RemoteTemplate {
                    remote,
                    descriptor,
                    template,
                };
                self.server.add_resource_template(handler)
            },
        )?;
        Ok(())
    }
}

/// Every page of a list; a remote without the feature (`-32601`) lists nothing.
async fn all_pages<T, F, Fut>(mut page: F) -> Result<Vec<T>, RequestError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), RequestError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let (mut more, next) = match page(cursor.take()).await {
            Err(RequestError::Peer(e)) if e.code == METHOD_NOT_FOUND => return Ok(items),
            other => other?,
        };
        items.append(&mut more);
        match next {
            Some(next) if !next.is_empty() => cursor = Some(next),
            _ => return Ok(items),
        }
    }
    tracing::warn!("a remote list has more than {MAX_PAGES} pages: the rest is left out");
    Ok(items)
}

/// Brings `registered` (key → descriptor as registered) in step with `wanted`: what went
/// is removed, what is new is added, what changed is replaced. Returns the first failure
/// to add (a key taken by a local item); the other items are still brought in step.
pub(super) fn reconcile<I, D: Serialize>(
    registered: &mut HashMap<String, Value>,
    wanted: impl IntoIterator<Item = (String, I)>,
    descriptor: impl Fn(&I) -> &D,
    remove: impl Fn(&str) -> bool,
    add: impl Fn(I) -> Result<(), ServerError>,
) -> Result<(), ServerError> {
    let wanted: Vec<(String, I)> = wanted.into_iter().collect();
    let keep: std::collections::HashSet<&str> = wanted.iter().map(|(k, _)| k.as_str()).collect();
    registered.retain(|key, _| {
        let kept = keep.contains(key.as_str());
        if !kept {
            remove(key);
        }
        kept
    });
    let mut first_error = None;
    for (key, item) in wanted {
        let now = serde_json::to_value(descriptor(&item)).unwrap_or(Value::Null);
        if registered.get(&key) == Some(&now) {
            continue;
        }
        if registered.remove(&key).is_some() {
            remove(&key);
        }
        match add(item) {
            Ok(()) => {
                registered.insert(key, now);
            }
            Err(e) => {
                tracing::warn!("a remote item is not registered: {e}");
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

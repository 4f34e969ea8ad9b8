//! App state: values of any `Send + Sync + 'static` type set once on the server builder
//! (`Server::state`) and read by type from every request's context ([`Ctx::state`]).

use super::Ctx;
use std::any::{Any, TypeId};

/// The app state of one server: at most one value per type, fixed once the server is
/// built. A handful of entries at most, so a list searched by `TypeId`.
#[derive(Default)]
pub(crate) struct AppState {
    values: Vec<(TypeId, Box<dyn Any + Send + Sync>)>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("values", &self.values.len())
            .finish()
    }
}

impl AppState {
    /// Adds `value`; refused (with its type's name) when a value of its type is set already.
    pub(crate) fn insert<T: Send + Sync + 'static>(
        &mut self,
        value: T,
    ) -> Result<(), &'static str> {
        let id = TypeId::of::<T>();
        if self.values.iter().any(|(t, _)| *t == id) {
            return Err(std::any::type_name::<T>());
        }
        self.values.push((id, Box::new(value)));
        Ok(())
    }

    /// The value of type `T`.
    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Result<&T, MissingState> {
        let id = TypeId::of::<T>();
        self.values
            .iter()
            .find(|(t, _)| *t == id)
            .and_then(|(_, v)| v.downcast_ref::<T>())
            .ok_or(MissingState {
                type_name: std::any::type_name::<T>(),
            })
    }
}

/// The app state of the servers mounted around a handler (`Server::mount`): the innermost
/// mount's first, then the mounts it sits in. A handler of a mounted server reads its own
/// server's values first, then those of the servers it was mounted into.
pub(crate) struct Mounted {
    state: std::sync::Arc<AppState>,
    outer: Option<std::sync::Arc<Mounted>>,
}

impl Mounted {
    fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.state
            .get::<T>()
            .ok()
            .or_else(|| self.outer.as_deref().and_then(Mounted::get::<T>))
    }
}

impl AppState {
    /// Whether no value was given.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// [`Ctx::state`] found no value of the type asked for: none was given to `Server::state`.
///
/// Its message names the type. Like any `std::error::Error` it converts into a
/// [`ToolError`](crate::ToolError) with `?`, so a tool reports it as an `isError` result
/// (it is never a panic).
///
/// ```
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
///
/// struct Db;
///
/// /// Needs a `Db` the server was not given.
/// #[mcp_tool]
/// async fn count(ctx: &Ctx) -> Result<String, ToolError> {
///     let _db = ctx.state::<Db>()?;
///     Ok("0".into())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(count).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let result = client.call_tool("count", serde_json::json!({})).await?;
/// assert_eq!(result.is_error, Some(true));
/// // "no app state of type `my_crate::Db` on this server: give one to `Server::state`"
/// let text = result.content[0].as_text().unwrap_or_default();
/// assert!(text.starts_with("no app state of type `"), "{text}");
/// assert!(text.ends_with("::Db` on this server: give one to `Server::state`"), "{text}");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissingState {
    type_name: &'static str,
}

impl MissingState {
    /// The full name of the type asked for (`std::any::type_name`).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// let missing = server.state::<u32>().unwrap_err();
    /// assert_eq!(missing.type_name(), "u32");
    /// # Ok(())
    /// # }
    /// ```
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

impl std::fmt::Display for MissingState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no app state of type `{}` on this server: give one to `Server::state`",
            self.type_name
        )
    }
}

impl std::error::Error for MissingState {}

impl<K> Ctx<K> {
    /// The app state of type `T` the server was given with `Server::state`: a database
    /// pool, a client, a cache, shared by every request of every session (and every
    /// replica's copy of the call, in either protocol era). Borrowed from the server, so
    /// cheap; a missing value is a [`MissingState`] naming the type, which `?` turns into
    /// the tool's error. The same accessor is on [`PhaseCtx`](crate::PhaseCtx) (a handoff
    /// tool's `before` / `after`) and on the `&Ctx` a completer may take.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
    ///
    /// struct Visits(AtomicU64);
    ///
    /// /// Counts visits.
    /// #[mcp_tool]
    /// async fn visit(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let visits = ctx.state::<Visits>()?;
    ///     Ok((visits.0.fetch_add(1, Ordering::SeqCst) + 1).to_string())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!())
    ///     .state(Visits(AtomicU64::new(0)))
    ///     .tool(visit)
    ///     .build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// client.call_tool("visit", serde_json::json!({})).await?;
    /// let second = client.call_tool("visit", serde_json::json!({})).await?;
    /// assert_eq!(second.content[0].as_text(), Some("2"));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// A handler of a mounted server (`Server::mount`) reads the value its own server was
    /// given first; a type its server has none of is looked up in the server it was mounted
    /// into (and so on out to the served one).
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, MissingState> {
        if let Some(value) = self.mounted.as_deref().and_then(Mounted::get::<T>) {
            return Ok(value);
        }
        self.inner.session.app_state().get::<T>()
    }

    /// The same context for a handler of a mounted server whose app state is `state`:
    /// [`Ctx::state`] looks there first.
    pub(crate) fn in_mount(&self, state: &std::sync::Arc<AppState>) -> Ctx<K> {
        if state.is_empty() {
            return self.clone();
        }
        let mut ctx = self.clone();
        ctx.mounted = Some(std::sync::Arc::new(Mounted {
            state: state.clone(),
            outer: self.mounted.clone(),
        }));
        ctx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type() {
        let mut state = AppState::default();
        assert_eq!(state.insert(1u32), Ok(()));
        assert_eq!(state.insert("text"), Ok(()));
        assert_eq!(state.insert(2u32), Err("u32"));
        assert_eq!(state.get::<u32>().copied(), Ok(1));
        assert_eq!(state.get::<&str>().copied(), Ok("text"));
        let missing = state.get::<u64>().unwrap_err();
        assert_eq!(missing.type_name(), "u64");
        assert!(missing.to_string().contains("`u64`"), "{missing}");
    }
}

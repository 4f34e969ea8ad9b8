//! [`ServerOptions`]: how a server behaves, and [`ProfileChooser`]: which
//! [`SchemaProfile`] each client's schemas are given in.

use super::CacheHint;
use crate::context::SchemaProfile;
use crate::protocol::{ClientCapabilities, Implementation};
use std::sync::Arc;
use std::time::Duration;

/// Settings that shape how a server behaves; every field has a sensible default.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::{Server, ServerOptions};
/// let options = ServerOptions::default()
///     .request_timeout(Duration::from_secs(30))
///     .page_size(50);
/// let server = Server::with_options(tracksuit::crate_info!(), options).build()?;
/// assert_eq!(server.options().page_size, 50);
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// How long a server→client request (sampling, elicitation, roots, ping) may take.
    pub request_timeout: Duration,
    /// Items per page in `*/list` results.
    pub page_size: usize,
    /// The largest message accepted, in bytes.
    pub max_message_size: usize,
    /// Messages a session may have queued for its client before senders wait
    /// (`ctx.log(..).await` and responses) or, for broadcasts from synchronous code, are
    /// dropped for that session. With the transport's own buffer this bounds what a client
    /// that stops reading can make the server hold.
    pub outbound_queue: usize,
    /// How task-augmented requests run.
    pub tasks: crate::task::TaskOptions,
    /// How long cacheable results may be reused on the modern (2026-07-28) revision.
    pub cache: CacheHint,
    /// How long the sealed `requestState` of a modern multi round-trip call stays valid: the
    /// client must answer and retry within it.
    pub request_state_ttl: Duration,
    /// The keys that seal `requestState`. `None`: from the `TRACKSUIT_STATE_KEYS`
    /// environment variable if set, else a random key for this process (replicas behind
    /// one endpoint must share keys: set the variable or this field on each).
    pub state_keys: Option<crate::seal::StateKeys>,
    /// Leave out of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` the items whose scopes the caller lacks (default: listed,
    /// and refused when used).
    pub hide_unauthorized: bool,
    /// Publish every tool's `inputSchema` in the strict profile
    /// ([`strict_schema`](crate::strict_schema): all properties required, optional ones
    /// nullable, `additionalProperties: false`), for clients with OpenAI-style strict
    /// validators. Off by default. When on, it applies to hand-written schemas too: such a
    /// client requires it of every tool. Calls are still checked against the tool's own
    /// schema, which accepts the `null` the profile lets through for an `Option`.
    ///
    /// The default is taken from the `TRACKSUIT_STRICT_SCHEMAS` environment variable (`1` or
    /// `true` turns it on), so a deployment can switch it without a rebuild. When on, every
    /// client gets [`SchemaProfile::OpenAiStrict`], whatever `schema_profile` says.
    pub strict_schemas: bool,
    /// Which [`SchemaProfile`] each client gets (in `tools/list` and `sample_schema`'s
    /// `__schema__` tool), chosen once per 2025 session from its `initialize` and on every
    /// 2026-07-28 request from its `_meta`. The default is one profile for everyone: the
    /// `TRACKSUIT_SCHEMA_PROFILE` environment variable's (`portable`, `openai-strict`,
    /// `gemini-safe` or `raw`), else [`SchemaProfile::Portable`].
    pub schema_profile: ProfileChooser,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            request_timeout: Duration::from_secs(300),
            page_size: 100,
            max_message_size: 4 * 1024 * 1024,
            outbound_queue: 64,
            tasks: crate::task::TaskOptions::default(),
            cache: CacheHint::default(),
            request_state_ttl: Duration::from_secs(15 * 60),
            state_keys: None,
            hide_unauthorized: false,
            strict_schemas: std::env::var("TRACKSUIT_STRICT_SCHEMAS")
                .is_ok_and(|v| matches!(v.as_str(), "1" | "true")),
            schema_profile: ProfileChooser::fixed(
                std::env::var("TRACKSUIT_SCHEMA_PROFILE")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_default(),
            ),
        }
    }
}

impl ServerOptions {
    /// Sets how long server→client requests may take.
    ///
    /// ```
    /// let o = tracksuit::ServerOptions::default().request_timeout(std::time::Duration::from_secs(5));
    /// assert_eq!(o.request_timeout.as_secs(), 5);
    /// ```
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the items per page of `*/list` results.
    ///
    /// ```
    /// let o = tracksuit::ServerOptions::default().page_size(20);
    /// assert_eq!(o.page_size, 20);
    /// ```
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size;
        self
    }

    /// Sets the largest accepted message, in bytes.
    ///
    /// ```
    /// let o = tracksuit::ServerOptions::default().max_message_size(1 << 20);
    /// assert_eq!(o.max_message_size, 1 << 20);
    /// ```
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets how many messages a session may have queued for its client (at least one).
    ///
    /// ```
    /// let o = tracksuit::ServerOptions::default().outbound_queue(16);
    /// assert_eq!(o.outbound_queue, 16);
    /// ```
    pub fn outbound_queue(mut self, messages: usize) -> Self {
        self.outbound_queue = messages.max(1);
        self
    }

    /// Sets how task-augmented requests run (ttl, polling interval, limits).
    ///
    /// ```
    /// use tracksuit::{ServerOptions, task::TaskOptions};
    /// let o = ServerOptions::default().tasks(TaskOptions::default());
    /// # let _ = o;
    /// ```
    pub fn tasks(mut self, tasks: crate::task::TaskOptions) -> Self {
        self.tasks = tasks;
        self
    }

    /// Sets the cache hint of cacheable results on the modern revision.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tracksuit::{CacheHint, ServerOptions};
    /// let o = ServerOptions::default().cache(CacheHint { ttl: Duration::from_secs(60), public: true });
    /// assert_eq!(o.cache.ttl.as_secs(), 60);
    /// ```
    pub fn cache(mut self, hint: CacheHint) -> Self {
        self.cache = hint;
        self
    }

    /// Sets how long a sealed `requestState` stays valid.
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::ServerOptions::default().request_state_ttl(Duration::from_secs(600));
    /// assert_eq!(o.request_state_ttl.as_secs(), 600);
    /// ```
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// Seals `requestState` with `keys` (share them between replicas).
    ///
    /// ```
    /// use tracksuit::{ServerOptions, StateKeys};
    /// let keys = StateKeys::from_secret(b"32 random bytes, shared by all!!")?;
    /// let o = ServerOptions::default().state_keys(keys);
    /// assert!(o.state_keys.is_some());
    /// # Ok::<(), tracksuit::KeyError>(())
    /// ```
    pub fn state_keys(mut self, keys: crate::seal::StateKeys) -> Self {
        self.state_keys = Some(keys);
        self
    }

    /// Whether list results leave out the items the caller's scopes do not allow.
    ///
    /// ```
    /// let o = tracksuit::ServerOptions::default().hide_unauthorized(true);
    /// assert!(o.hide_unauthorized);
    /// ```
    pub fn hide_unauthorized(mut self, on: bool) -> Self {
        self.hide_unauthorized = on;
        self
    }

    /// Whether every client gets the strict profile ([`SchemaProfile::OpenAiStrict`]).
    ///
    /// ```
    /// use tracksuit::{SchemaProfile, ServerOptions, protocol::Implementation};
    /// let o = ServerOptions::default().strict_schemas(true);
    /// let anyone = (Implementation::new("any", "1"), Default::default());
    /// assert_eq!(o.profile_for(&anyone.0, &anyone.1), SchemaProfile::OpenAiStrict);
    /// ```
    pub fn strict_schemas(mut self, on: bool) -> Self {
        self.strict_schemas = on;
        self
    }

    /// Gives every client `profile`'s schemas.
    ///
    /// ```
    /// use tracksuit::{SchemaProfile, ServerOptions, protocol::Implementation};
    /// let o = ServerOptions::default().schema_profile(SchemaProfile::GeminiSafe);
    /// let client = Implementation::new("any", "1");
    /// assert_eq!(o.profile_for(&client, &Default::default()), SchemaProfile::GeminiSafe);
    /// ```
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.schema_profile = ProfileChooser::fixed(profile);
        self
    }

    /// Chooses each client's profile from what it says about itself: its `clientInfo` and
    /// declared capabilities.
    ///
    /// ```
    /// use tracksuit::{SchemaProfile, ServerOptions, protocol::Implementation};
    /// let o = ServerOptions::default().schema_profile_by(|info, _capabilities| {
    ///     if info.name.contains("gemini") { SchemaProfile::GeminiSafe } else { SchemaProfile::Portable }
    /// });
    /// let caps = Default::default();
    /// assert_eq!(o.profile_for(&Implementation::new("gemini-cli", "0.9"), &caps), SchemaProfile::GeminiSafe);
    /// assert_eq!(o.profile_for(&Implementation::new("claude-code", "2"), &caps), SchemaProfile::Portable);
    /// ```
    pub fn schema_profile_by(
        mut self,
        choose: impl Fn(&Implementation, &ClientCapabilities) -> SchemaProfile + Send + Sync + 'static,
    ) -> Self {
        self.schema_profile = ProfileChooser::new(choose);
        self
    }

    /// The profile a client that introduced itself as `info` with `capabilities` gets.
    ///
    /// ```
    /// use tracksuit::{SchemaProfile, ServerOptions, protocol::Implementation};
    /// let o = ServerOptions::default().strict_schemas(false).schema_profile(SchemaProfile::Portable);
    /// assert_eq!(o.profile_for(&Implementation::new("c", "1"), &Default::default()), SchemaProfile::Portable);
    /// ```
    pub fn profile_for(
        &self,
        info: &Implementation,
        capabilities: &ClientCapabilities,
    ) -> SchemaProfile {
        if self.strict_schemas {
            SchemaProfile::OpenAiStrict
        } else {
            self.schema_profile.choose(info, capabilities)
        }
    }
}

/// The function choosing a client's [`SchemaProfile`] (see
/// [`ServerOptions::schema_profile_by`]); cheap to clone.
///
/// ```
/// use tracksuit::{ProfileChooser, SchemaProfile, protocol::Implementation};
/// let by_name = ProfileChooser::new(|info, _| match info.name.as_str() {
///     "openai-mcp" => SchemaProfile::OpenAiStrict,
///     _ => SchemaProfile::Portable,
/// });
/// let caps = Default::default();
/// assert_eq!(by_name.choose(&Implementation::new("openai-mcp", "1"), &caps), SchemaProfile::OpenAiStrict);
/// assert_eq!(ProfileChooser::fixed(SchemaProfile::Raw).choose(&Implementation::new("x", "1"), &caps), SchemaProfile::Raw);
/// ```
#[derive(Clone)]
pub struct ProfileChooser(Chooser);

type ChooseFn = dyn Fn(&Implementation, &ClientCapabilities) -> SchemaProfile + Send + Sync;

#[derive(Clone)]
enum Chooser {
    Fixed(SchemaProfile),
    By(Arc<ChooseFn>),
}

impl ProfileChooser {
    /// One profile for every client.
    pub fn fixed(profile: SchemaProfile) -> Self {
        ProfileChooser(Chooser::Fixed(profile))
    }

    /// A profile chosen by `choose` from the client's `clientInfo` and capabilities.
    pub fn new(
        choose: impl Fn(&Implementation, &ClientCapabilities) -> SchemaProfile + Send + Sync + 'static,
    ) -> Self {
        ProfileChooser(Chooser::By(Arc::new(choose)))
    }

    /// The profile of a client that said `info` and `capabilities`.
    pub fn choose(
        &self,
        info: &Implementation,
        capabilities: &ClientCapabilities,
    ) -> SchemaProfile {
        match &self.0 {
            Chooser::Fixed(profile) => *profile,
            Chooser::By(choose) => choose(info, capabilities),
        }
    }
}

impl Default for ProfileChooser {
    fn default() -> Self {
        ProfileChooser::fixed(SchemaProfile::Portable)
    }
}

impl std::fmt::Debug for ProfileChooser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Chooser::Fixed(profile) => f.debug_tuple("Fixed").field(profile).finish(),
            Chooser::By(_) => f.write_str("By(<fn>)"),
        }
    }
}

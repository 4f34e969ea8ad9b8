//! [`HttpOptions`]: the Streamable HTTP host's settings (allowed hosts and origins,
//! stateless or session mode, JSON responses, limits and timeouts, auth).

#[cfg(feature = "auth")]
use super::auth;
use std::time::Duration;

/// Streamable HTTP settings.
///
/// ```
/// use tracksuit::host::http::HttpOptions;
/// let options = HttpOptions::default()
///     .allowed_hosts(Some(vec!["mcp.example.com".into()]))
///     .json_response(true);
/// assert!(options.json_response);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Answer requests with one JSON body instead of an SSE stream.
    pub json_response: bool,
    /// No sessions: every POST is served on its own, without `initialize` state, and
    /// server→client requests are unavailable.
    pub stateless: bool,
    /// Accepted `Host` / `Origin` host names; `None` disables the check (only do that
    /// behind something else that validates them). Default: `localhost`, `127.0.0.1`, `[::1]`.
    pub allowed_hosts: Option<Vec<String>>,
    /// Sessions untouched this long (and with no open stream) are dropped.
    pub session_idle_timeout: Duration,
    /// The most 2025-11-25 sessions open at once (default 20 000, about 110 MiB): over it,
    /// idle sessions are swept first, then `initialize` gets `503`.
    pub max_sessions: usize,
    /// The most sessions one principal may hold open at once (default 64; with
    /// authentication only): over it, its `initialize` gets `429` until it ends one
    /// (`DELETE`) or one expires.
    pub max_sessions_per_principal: usize,
    /// The `retry:` delay clients wait before reconnecting a closed stream.
    pub sse_retry: Duration,
    /// Largest accepted POST body, in bytes (larger → 413).
    pub max_body_size: usize,
    /// How long a POST body may take to arrive, from its request head (default 30 s;
    /// later → `408 Request Timeout`, and the connection is closed).
    pub request_body_timeout: Duration,
    /// How long a connection may take to send a complete request head, counted from when
    /// it opens or its previous response ended (default 10 s): a slow head (slowloris) or
    /// an idle keep-alive connection is closed after this long. Applies where
    /// [`serve_with`](super::serve_with) (or `serve_http`) accepts the connections.
    pub header_read_timeout: Duration,
    /// The most connections [`serve_with`](super::serve_with) keeps open (default: no cap but the process's
    /// file descriptors). A new connection over the cap closes the idle connection that
    /// waited longest (one that never sent a request first); with none idle, the new one
    /// is closed. Running out of file descriptors does the same, so a flood of half-open
    /// connections cannot lock new clients out.
    pub max_connections: Option<usize>,
    /// Events kept on the standalone stream for `Last-Event-ID` replay.
    pub replay_buffer: usize,
    /// Once a burst of sessions (64 or more open at once) has closed down to a quarter and
    /// the count has stopped falling for a second, ask the allocator to hand the freed
    /// memory back to the operating system (glibc `malloc_trim`; nothing under other
    /// allocators). Default: on.
    pub release_memory_after_bursts: bool,
    /// Protects the endpoint as an OAuth resource server (feature `auth`): bearer tokens
    /// are required and checked, and the protected resource metadata is served.
    #[cfg(feature = "auth")]
    pub auth: Option<auth::ResourceServer>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            json_response: false,
            stateless: false,
            allowed_hosts: Some(vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()]),
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 20_000,
            max_sessions_per_principal: 64,
            sse_retry: Duration::from_millis(1000),
            max_body_size: 4 * 1024 * 1024,
            request_body_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            max_connections: None,
            replay_buffer: 256,
            release_memory_after_bursts: true,
            #[cfg(feature = "auth")]
            auth: None,
        }
    }
}

impl HttpOptions {
    /// Answer with JSON bodies rather than SSE.
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().json_response(true);
    /// assert!(o.json_response);
    /// ```
    pub fn json_response(mut self, on: bool) -> Self {
        self.json_response = on;
        self
    }

    /// Stateless mode (no sessions).
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().stateless(true);
    /// assert!(o.stateless);
    /// ```
    pub fn stateless(mut self, on: bool) -> Self {
        self.stateless = on;
        self
    }

    /// Replaces the allowed host names (`None` turns the check off).
    ///
    /// ```
    /// // Reached as https://mcp.example.com behind a proxy (else: 403 Host not allowed).
    /// let o = tracksuit::host::http::HttpOptions::default()
    ///     .allowed_hosts(Some(vec!["mcp.example.com".into(), "localhost".into()]));
    /// assert_eq!(o.allowed_hosts.unwrap().len(), 2);
    /// ```
    pub fn allowed_hosts(mut self, hosts: Option<Vec<String>>) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    /// Sets the idle-session expiry.
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::host::http::HttpOptions::default().session_idle_timeout(Duration::from_secs(300));
    /// assert_eq!(o.session_idle_timeout.as_secs(), 300);
    /// ```
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Sets the largest accepted body.
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().max_body_size(1 << 20);
    /// assert_eq!(o.max_body_size, 1 << 20);
    /// ```
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = bytes;
        self
    }

    /// Caps the sessions open at once, server-wide and per principal (each at least 1).
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().max_sessions(5_000, 16);
    /// assert_eq!((o.max_sessions, o.max_sessions_per_principal), (5_000, 16));
    /// ```
    pub fn max_sessions(mut self, total: usize, per_principal: usize) -> Self {
        self.max_sessions = total.max(1);
        self.max_sessions_per_principal = per_principal.max(1);
        self
    }

    /// Sets how long a POST body may take to arrive (at least 1 ms).
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::host::http::HttpOptions::default().request_body_timeout(Duration::from_secs(5));
    /// assert_eq!(o.request_body_timeout, Duration::from_secs(5));
    /// ```
    pub fn request_body_timeout(mut self, timeout: Duration) -> Self {
        self.request_body_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Sets how long a connection may take to send a request head, and stay idle between
    /// requests (at least 1 ms).
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::host::http::HttpOptions::default().header_read_timeout(Duration::from_secs(3));
    /// assert_eq!(o.header_read_timeout, Duration::from_secs(3));
    /// ```
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Caps the connections [`serve_with`](super::serve_with) keeps open (`None`: no cap but the file
    /// descriptors; `Some(0)` is taken as 1).
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().max_connections(Some(900));
    /// assert_eq!(o.max_connections, Some(900));
    /// ```
    pub fn max_connections(mut self, max: Option<usize>) -> Self {
        self.max_connections = max.map(|m| m.max(1));
        self
    }

    /// Whether to give memory back after a burst of sessions (default on; see the field of
    /// the same name).
    ///
    /// ```
    /// use tracksuit::host::http::HttpOptions;
    /// let options = HttpOptions::default().release_memory_after_bursts(false);
    /// assert!(!options.release_memory_after_bursts);
    /// ```
    pub fn release_memory_after_bursts(mut self, on: bool) -> Self {
        self.release_memory_after_bursts = on;
        self
    }

    /// Requires a valid bearer token on every request to the endpoint and serves the
    /// protected resource metadata beside it (see [`auth`]).
    ///
    /// ```
    /// use tracksuit::host::http::HttpOptions;
    /// use tracksuit::host::http::auth::{JwtValidator, ResourceServer};
    /// let resource = "http://127.0.0.1:8000/mcp";
    /// let issuer = "http://127.0.0.1:9000";
    /// let validator = JwtValidator::new(issuer, resource, "http://127.0.0.1:9000/jwks");
    /// let options = HttpOptions::default()
    ///     .auth(ResourceServer::new(resource, validator).authorization_server(issuer));
    /// assert!(options.auth.is_some());
    /// ```
    #[cfg(feature = "auth")]
    pub fn auth(mut self, resource: auth::ResourceServer) -> Self {
        self.auth = Some(resource);
        self
    }
}

//! How `HttpTransport` reaches its endpoint: the hyper client (plain TCP, or with feature
//! `tls` rustls in front of it for `https://`), and what a failed connection was
//! ([`ConnectError`]).
//!
//! With `tls` the connector is hyper-rustls over rustls with the ring backend, HTTP/1.1 only
//! (no ALPN offered, so the server answers in HTTP/1.1), TLS 1.2 and 1.3, trusting the
//! system's root certificates (read once per process with `rustls-native-certs`) and those
//! added with `HttpTransport::root_certificate`. The server name checked is the URL's
//! host (a DNS name, or an IP address against the certificate's IP SANs).

use crate::peer::RequestError;
use crate::protocol::ErrorObject;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use serde::{Deserialize, Serialize};
use std::error::Error as StdError;
use std::time::Duration;

#[cfg(feature = "tls")]
type Connector = hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>;
#[cfg(not(feature = "tls"))]
type Connector = hyper_util::client::legacy::connect::HttpConnector;

/// The hyper client every request to the MCP endpoint goes through.
pub(crate) type Http = HyperClient<Connector, Full<Bytes>>;

/// The key of a failed request's error `data` that holds its [`ConnectError`].
const DATA_KEY: &str = "connectError";

/// The TLS settings of one transport (empty without feature `tls`).
#[derive(Debug, Clone, Default)]
pub(crate) struct TlsSettings {
    /// Roots added with `HttpTransport::root_certificate`, parsed.
    #[cfg(feature = "tls")]
    roots: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// Whether the system's roots are left out (`system_roots(false)`).
    #[cfg(feature = "tls")]
    no_system_roots: bool,
}

/// The client for one transport: pooled keep-alive connections, idle ones closed after
/// `idle`.
pub(crate) fn client(tls: &TlsSettings, idle: Duration) -> Http {
    HyperClient::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .pool_idle_timeout(idle)
        .build(connector(tls))
}

#[cfg(not(feature = "tls"))]
fn connector(_: &TlsSettings) -> Connector {
    Connector::new()
}

#[cfg(feature = "tls")]
fn connector(tls: &TlsSettings) -> Connector {
    let mut roots = rustls::RootCertStore::empty();
    if !tls.no_system_roots {
        // Certificates the TLS library cannot use are left out, as browsers do.
        let _ = roots.add_parsable_certificates(system_roots().iter().cloned());
    }
    let _ = roots.add_parsable_certificates(tls.roots.iter().cloned());
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports TLS 1.2 and 1.3, rustls's safe defaults")
        .with_root_certificates(roots)
        .with_no_client_auth();
    hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .build()
}

/// The system's root certificates, read once per process.
#[cfg(feature = "tls")]
fn system_roots() -> &'static [rustls::pki_types::CertificateDer<'static>] {
    static ROOTS: std::sync::OnceLock<Vec<rustls::pki_types::CertificateDer<'static>>> =
        std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            tracing::debug!(%error, "a system root certificate could not be read");
        }
        found.certs
    })
}

#[cfg(feature = "tls")]
impl super::HttpTransport {
    /// Trusts `pem`'s certificates (one or more `BEGIN CERTIFICATE` blocks) as roots for
    /// `https://`, besides the system's (feature `tls`): a private CA, or a test's.
    ///
    /// ```
    /// use tracksuit::client::{HttpTransport, InvalidUrl};
    /// let refused = HttpTransport::new("https://mcp.internal/mcp")
    ///     .unwrap()
    ///     .root_certificate(b"not a certificate");
    /// assert!(matches!(refused, Err(InvalidUrl::Certificate(_))));
    /// ```
    pub fn root_certificate(mut self, pem: impl AsRef<[u8]>) -> Result<Self, super::InvalidUrl> {
        use rustls::pki_types::{CertificateDer, pem::PemObject};
        let bad = |why: String| super::InvalidUrl::Certificate(why);
        let mut found = 0;
        for cert in CertificateDer::pem_slice_iter(pem.as_ref()) {
            let cert = cert.map_err(|e| bad(e.to_string()))?;
            // Checked now, so a certificate rustls cannot use fails here, not at connect.
            rustls::RootCertStore::empty()
                .add(cert.clone())
                .map_err(|e| bad(e.to_string()))?;
            self.tls.roots.push(cert);
            found += 1;
        }
        if found == 0 {
            return Err(bad("no PEM `CERTIFICATE` block".into()));
        }
        Ok(self)
    }

    /// Whether the system's root certificates are trusted (default `true`; feature `tls`).
    /// `false` trusts only the roots added with [`root_certificate`](Self::root_certificate):
    /// a deployment pinned to its own CA.
    ///
    /// ```
    /// let transport = tracksuit::client::HttpTransport::new("https://mcp.internal/mcp")
    ///     .unwrap()
    ///     .system_roots(false);
    /// # let _ = transport;
    /// ```
    pub fn system_roots(mut self, trust: bool) -> Self {
        self.tls.no_system_roots = !trust;
        self
    }
}

/// Why a request never reached the MCP endpoint: the connection or its TLS handshake
/// failed. A failed request's [`RequestError`] carries it; [`ConnectError::of`] reads it.
///
/// ```
/// use tracksuit::RequestError;
/// use tracksuit::client::{Client, ConnectError, HttpTransport};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // A port nothing listens on any more.
/// let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
/// let url = format!("http://127.0.0.1:{port}/mcp");
/// let Err(err) = Client::builder().connect(HttpTransport::new(&url)?).await else {
///     panic!("nothing listens on {port}");
/// };
/// assert!(matches!(ConnectError::of(&err), Some(ConnectError::Unreachable(_))));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ConnectError {
    /// No connection: the name did not resolve, or the TCP connection was refused or
    /// timed out.
    #[error("could not connect: {0}")]
    Unreachable(String),
    /// The server's certificate does not lead to a trusted root (rustls's `UnknownIssuer`
    /// or `BadSignature`): not signed by a root the transport was given.
    #[error("the server's certificate is not signed by a trusted root: {0}")]
    UntrustedCertificate(String),
    /// The server's certificate does not name the URL's host.
    #[error("the server's certificate is not valid for this host: {0}")]
    HostnameMismatch(String),
    /// The certificate was refused for another reason (expired, not yet valid, revoked,
    /// not for server authentication, malformed).
    #[error("the server's certificate was refused: {0}")]
    InvalidCertificate(String),
    /// The TLS handshake failed otherwise (no shared protocol version or cipher suite, an
    /// alert from the server, not TLS at all).
    #[error("TLS handshake failed: {0}")]
    Tls(String),
}

impl ConnectError {
    /// The connection failure behind `error`, if the request failed for want of a
    /// connection (`None` for any other error, an answer from the server included).
    pub fn of(error: &RequestError) -> Option<ConnectError> {
        match error {
            RequestError::Peer(e) => Self::in_error(e),
            _ => None,
        }
    }

    /// The connection failure recorded in a failed request's error object.
    pub fn in_error(error: &ErrorObject) -> Option<ConnectError> {
        let data = error.data.as_ref()?.get(DATA_KEY)?;
        serde_json::from_value(data.clone()).ok()
    }
}

/// Why the transport got no response: the text, and the connection failure if that was it.
#[derive(Debug)]
pub(crate) struct SendError {
    message: String,
    connect: Option<ConnectError>,
}

impl SendError {
    /// The error a failed request is answered with: `context: message`, the
    /// [`ConnectError`] in its `data`.
    pub(crate) fn into_error(self, context: &str) -> ErrorObject {
        let error = ErrorObject::internal(format!("{context}: {}", self.message));
        match self.connect.and_then(|c| serde_json::to_value(c).ok()) {
            Some(connect) => error.with_data(serde_json::json!({ DATA_KEY: connect })),
            None => error,
        }
    }
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for SendError {
    fn from(message: String) -> Self {
        SendError {
            message,
            connect: None,
        }
    }
}

impl From<hyper_util::client::legacy::Error> for SendError {
    fn from(error: hyper_util::client::legacy::Error) -> Self {
        let connect = error
            .is_connect()
            .then(|| classify(error.source().unwrap_or(&error)));
        let message = match &connect {
            Some(connect) => connect.to_string(),
            None => chain(&error),
        };
        SendError { message, connect }
    }
}

/// `error` and its sources, `: `-separated.
fn chain(error: &(dyn StdError + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(e) = next {
        text.push_str(": ");
        text.push_str(&e.to_string());
        next = e.source();
    }
    text
}

/// What kind of connection failure `error` (a connector's error) is.
fn classify(error: &(dyn StdError + 'static)) -> ConnectError {
    #[cfg(feature = "tls")]
    if let Some(tls) = find_tls_error(error) {
        use rustls::CertificateError as C;
        let detail = tls.to_string();
        return match tls {
            rustls::Error::InvalidCertificate(C::UnknownIssuer | C::BadSignature) => {
                ConnectError::UntrustedCertificate(detail)
            }
            rustls::Error::InvalidCertificate(
                C::NotValidForName | C::NotValidForNameContext { .. },
            ) => ConnectError::HostnameMismatch(detail),
            rustls::Error::InvalidCertificate(_) => ConnectError::InvalidCertificate(detail),
            _ => ConnectError::Tls(detail),
        };
    }
    ConnectError::Unreachable(chain(error))
}

/// The rustls error in `error`'s chain. An `io::Error` shows its source's source, not its
/// source (`io::Error::source`), so each one is opened with `get_ref`.
#[cfg(feature = "tls")]
fn find_tls_error<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a rustls::Error> {
    let mut next = Some(error);
    // A chain is finite; the bound only keeps a pathological one cheap.
    for _ in 0..16 {
        let e = next?;
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        next = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn StdError + 'static)),
            None => e.source(),
        };
    }
    None
}

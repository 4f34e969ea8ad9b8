//! A [`UserAgent`] for command-line tools: the user opens the authorization URL in a
//! browser, which is redirected to a listener on `127.0.0.1` (RFC 8252 §7.3).

use super::{OAuthError, UserAgent};
use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use oauth2::url::Url;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

type OpenFn = dyn Fn(&Url) + Send + Sync;

/// Waits on `http://127.0.0.1:<port>/callback` for the browser's redirect.
///
/// ```
/// use tracksuit::client::oauth::{LoopbackUserAgent, Url, UserAgent};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let agent = LoopbackUserAgent::bind(0).await?.on_open(|url| {
///     // A real tool prints the URL or opens a browser; here the "browser" is redirected
///     // straight back, as an authorization server that approves would do.
///     let state = url.query_pairs().find(|(k, _)| k == "state").unwrap().1.into_owned();
///     let redirect = url.query_pairs().find(|(k, _)| k == "redirect_uri").unwrap().1.into_owned();
///     tokio::spawn(reqwest::get(format!("{redirect}?code=abc&state={state}")));
/// });
/// let mut url = Url::parse("https://as.example/authorize")?;
/// url.query_pairs_mut().append_pair("state", "xyz").append_pair("redirect_uri", &agent.redirect_uri());
/// let callback = agent.authorize(url).await?;
/// assert!(callback.as_str().ends_with("/callback?code=abc&state=xyz"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct LoopbackUserAgent {
    listener: Arc<TcpListener>,
    redirect_uri: String,
    open: Arc<OpenFn>,
    timeout: Duration,
}

impl std::fmt::Debug for LoopbackUserAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackUserAgent")
            .field("redirect_uri", &self.redirect_uri)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackUserAgent {
    /// Listens on `127.0.0.1:port` (0: any free port). The URL is printed to standard
    /// error until [`on_open`](Self::on_open) says otherwise; the wait lasts 5 minutes
    /// until [`timeout`](Self::timeout) says otherwise.
    pub async fn bind(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        Ok(LoopbackUserAgent {
            listener: Arc::new(listener),
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
            open: Arc::new(|url| eprintln!("Open this URL to authorize: {url}")),
            timeout: Duration::from_secs(300),
        })
    }

    /// What to do with the authorization URL (open a browser, print it).
    pub fn on_open(mut self, open: impl Fn(&Url) + Send + Sync + 'static) -> Self {
        self.open = Arc::new(open);
        self
    }

    /// How long to wait for the redirect.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn wait(&self) -> Result<Url, OAuthError> {
        let (found, mut callbacks) = mpsc::channel::<Url>(1);
        let base = self.redirect_uri.clone();
        loop {
            let (stream, _) = tokio::select! {
                url = callbacks.recv() => {
                    return url.ok_or_else(|| OAuthError::UserAgent("listener closed".into()));
                }
                accepted = self.listener.accept() => {
                    accepted.map_err(|e| OAuthError::UserAgent(e.to_string()))?
                }
            };
            let found = found.clone();
            let base = base.clone();
            let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                let found = found.clone();
                let base = base.clone();
                async move { Ok::<_, std::convert::Infallible>(answer(&request, &base, &found)) }
            });
            tokio::spawn(async move {
                // One request per connection: a browser keeping it alive would otherwise
                // send the next authorization's redirect to this wait's dead channel.
                let _ = hyper::server::conn::http1::Builder::new()
                    .keep_alive(false)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    }
}

/// The page for a request to the listener; a request to the callback path is handed on.
fn answer<B>(request: &Request<B>, base: &str, found: &mpsc::Sender<Url>) -> Response<Full<Bytes>> {
    let query = request
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    let url = Url::parse(&format!("{base}{query}"));
    let (status, text) = match url {
        Ok(url) if request.uri().path() == "/callback" => {
            let _ = found.try_send(url);
            (
                StatusCode::OK,
                "Authorization received. You can close this window.",
            )
        }
        _ => (StatusCode::NOT_FOUND, "Not found."),
    };
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
}

impl UserAgent for LoopbackUserAgent {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        Box::pin(async move {
            (self.open)(&url);
            tokio::time::timeout(self.timeout, self.wait())
                .await
                .map_err(|_| OAuthError::UserAgent("timed out waiting for the redirect".into()))?
        })
    }
}

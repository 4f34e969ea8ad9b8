//! The HTTP side of the OAuth client: every URL checked (HTTPS, or HTTP on loopback)
//! before it is contacted, redirects followed by hand so each hop is checked too, bodies
//! capped, JSON parsed without trusting it.

use super::OAuthError;
use super::dpop::{Dpop, USE_NONCE};
use oauth2::url::{Host, Url};
use serde_json::Value;
use std::time::Duration;

/// The most bytes read of a metadata, registration or token response.
const MAX_BODY: usize = 1 << 20;
/// The most redirects followed for one `GET`.
const MAX_REDIRECTS: usize = 5;

/// `url` parsed, if the client may contact it: `https`, or `http` to a loopback host.
pub(crate) fn secure_url(url: &str) -> Result<Url, OAuthError> {
    let parsed = Url::parse(url).map_err(|e| OAuthError::InvalidUrl {
        url: url.to_owned(),
        reason: e.to_string(),
    })?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        _ => Err(OAuthError::InsecureUrl(url.to_owned())),
    }
}

/// Whether `url`'s host is `localhost`, `127.0.0.0/8` or `::1`.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// What a `GET` for a metadata document found.
#[derive(Debug)]
pub(crate) enum Fetched {
    /// A JSON document (2xx).
    Json(Value),
    /// A 4xx: nothing there, try the next location.
    Missing,
}

/// The reqwest client the OAuth flow uses (no automatic redirects).
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    http: reqwest::Client,
}

impl Fetcher {
    /// `roots`: trusted besides the system's (a private CA's, a test's).
    pub(crate) fn new(
        timeout: Duration,
        roots: Vec<reqwest::Certificate>,
    ) -> Result<Self, OAuthError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .tls_certs_merge(roots)
            .build()
            .map_err(|e| OAuthError::Config(format!("HTTP client: {e}")))?;
        Ok(Fetcher { http })
    }

    /// `GET url` for JSON, following redirects that stay secure.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Fetched, OAuthError> {
        let mut url = secure_url(url)?;
        for _ in 0..=MAX_REDIRECTS {
            let response = self
                .http
                .get(url.clone())
                .header("accept", "application/json")
                .send()
                .await
                .map_err(|e| http_error(&url, e))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get("location")
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| OAuthError::Status {
                        url: url.to_string(),
                        status: status.as_u16(),
                    })?;
                let next = url.join(location).map_err(|e| OAuthError::InvalidUrl {
                    url: location.to_owned(),
                    reason: e.to_string(),
                })?;
                url = secure_url(next.as_str())?;
                continue;
            }
            if status.is_client_error() {
                return Ok(Fetched::Missing);
            }
            if !status.is_success() {
                return Err(OAuthError::Status {
                    url: url.to_string(),
                    status: status.as_u16(),
                });
            }
            let body = read_capped(response, &url).await?;
            return serde_json::from_slice(&body)
                .map(Fetched::Json)
                .map_err(|e| malformed(&url, format!("not JSON: {e}")));
        }
        Err(OAuthError::Http {
            url: url.to_string(),
            reason: "too many redirects".into(),
        })
    }

    /// `POST url` with a JSON body; the status and the JSON answer.
    pub(crate) async fn post_json(
        &self,
        url: &Url,
        body: &Value,
    ) -> Result<(u16, Value), OAuthError> {
        let response = self
            .http
            .post(url.clone())
            .header("accept", "application/json")
            .json(body)
            .send()
            .await
            .map_err(|e| http_error(url, e))?;
        let status = response.status().as_u16();
        let body = read_capped(response, url).await?;
        let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        Ok((status, value))
    }

    /// Sends a token request with a DPoP proof when `dpop` is given; a `use_dpop_nonce`
    /// answer that brings a new nonce is retried once with it (never more: a server that
    /// keeps asking gets its error back).
    pub(crate) async fn execute_dpop(
        &self,
        request: oauth2::HttpRequest,
        dpop: Option<&Dpop>,
    ) -> Result<oauth2::HttpResponse, OAuthError> {
        let Some(dpop) = dpop else {
            return self.execute(request).await;
        };
        let url = secure_url(&request.uri().to_string())?;
        let method = request.method().as_str().to_owned();
        let mut retried = false;
        loop {
            let mut attempt = copy(&request);
            let proof = dpop.proof(&method, &url, None, None)?;
            let value = http::HeaderValue::try_from(proof).map_err(|e| OAuthError::Http {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
            attempt.headers_mut().insert("dpop", value);
            let response = self.execute(attempt).await?;
            let fresh = dpop.remember(&url, response.headers());
            if retried || !fresh || !asks_for_nonce(&response) {
                return Ok(response);
            }
            retried = true;
        }
    }

    /// Sends a request built by the `oauth2` crate (token endpoint), unfollowed.
    pub(crate) async fn execute(
        &self,
        request: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, OAuthError> {
        let url = secure_url(&request.uri().to_string())?;
        let request = reqwest::Request::try_from(request).map_err(|e| http_error(&url, e))?;
        let response = self
            .http
            .execute(request)
            .await
            .map_err(|e| http_error(&url, e))?;
        let mut builder = http::Response::builder().status(response.status());
        for (name, value) in response.headers() {
            builder = builder.header(name, value);
        }
        let body = read_capped(response, &url).await?;
        builder.body(body).map_err(|e| OAuthError::Http {
            url: url.to_string(),
            reason: e.to_string(),
        })
    }
}

/// Whether a token endpoint answered `400 {"error": "use_dpop_nonce"}`.
fn asks_for_nonce(response: &oauth2::HttpResponse) -> bool {
    response.status() == http::StatusCode::BAD_REQUEST
        && serde_json::from_slice::<Value>(response.body())
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned))
            .is_some_and(|e| e == USE_NONCE)
}

/// `request` again (its body is bytes).
fn copy(request: &oauth2::HttpRequest) -> oauth2::HttpRequest {
    let mut copy = http::Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.headers_mut() = request.headers().clone();
    copy
}

async fn read_capped(mut response: reqwest::Response, url: &Url) -> Result<Vec<u8>, OAuthError> {
    let mut out = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| http_error(url, e))? {
        if out.len() + chunk.len() > MAX_BODY {
            return Err(malformed(url, "response body too large".into()));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

fn http_error(url: &Url, e: reqwest::Error) -> OAuthError {
    // reqwest's own text leaves out the cause (a refused certificate, a refused connection).
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        reason.push_str(": ");
        reason.push_str(&cause.to_string());
        source = cause.source();
    }
    OAuthError::Http {
        url: url.to_string(),
        reason,
    }
}

pub(crate) fn malformed(url: &Url, reason: String) -> OAuthError {
    OAuthError::MalformedMetadata {
        url: url.to_string(),
        reason,
    }
}

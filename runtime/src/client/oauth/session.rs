//! The transport's side: every request to the MCP endpoint carries the stored token; a
//! `401` (or an `insufficient_scope` `403`) runs the flow once per request at a time and
//! the request is sent again. A DPoP-bound token goes with the `DPoP` scheme and a fresh
//! proof; a `use_dpop_nonce` refusal is retried once with the server's new nonce.

use super::discovery::split_scopes;
use super::dpop::USE_NONCE;
use super::{Challenge, MAX_AUTHORIZATIONS, OAuthClient, OAuthError, StoredToken, Url};
use crate::client::connect::{Http, SendError};
use bytes::Bytes;
use http::header::{AUTHORIZATION, HeaderValue, WWW_AUTHENTICATE};
use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;
use http_body_util::Full;
use hyper::body::Incoming;

/// An [`OAuthClient`] bound to one MCP endpoint.
#[derive(Debug)]
pub(crate) struct Session {
    oauth: OAuthClient,
    server: String,
}

impl Session {
    pub(crate) fn new(oauth: OAuthClient, server: String) -> Self {
        Session { oauth, server }
    }

    /// Sends `request` with the token, authorizing and resending on a challenge (at most
    /// [`MAX_AUTHORIZATIONS`] times; then the refusal is the answer).
    pub(crate) async fn send(
        &self,
        http: &Http,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, SendError> {
        let mut authorizations = 0;
        let mut nonce_retried = false;
        let body = match self.oauth.dpop() {
            Some(_) => Some(request.body().clone().collect().await.map(|c| c.to_bytes())),
            None => None,
        };
        let body = body.and_then(Result::ok).filter(|b| !b.is_empty());
        loop {
            let token = self.oauth.token(&self.server).await;
            let mut attempt = copy(&request);
            let url = self.present(&mut attempt, token.as_ref(), body.as_deref())?;
            let response = http.request(attempt).await.map_err(SendError::from)?;
            let challenge = response
                .headers()
                .get(WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .map(Challenge::parse)
                .unwrap_or_default();
            if let (Some(dpop), Some(url)) = (self.oauth.dpop(), &url) {
                dpop.remember(url, response.headers());
                let wants_nonce = response.status() == StatusCode::UNAUTHORIZED
                    && challenge.error.as_deref() == Some(USE_NONCE);
                if wants_nonce && (nonce_retried || dpop.nonce(url).is_none()) {
                    // A server that keeps asking gets no further tries (nor a new grant).
                    return Ok(response);
                }
                if wants_nonce {
                    nonce_retried = true;
                    continue;
                }
            }
            let refused = match response.status() {
                StatusCode::UNAUTHORIZED => true,
                StatusCode::FORBIDDEN => challenge.error.as_deref() == Some("insufficient_scope"),
                _ => false,
            };
            if !refused || authorizations == MAX_AUTHORIZATIONS {
                return Ok(response);
            }
            authorizations += 1;
            // A refresh may answer the first refusal only; after it, a new grant.
            self.recover(&challenge, token.as_ref(), authorizations == 1)
                .await
                .map_err(|e| format!("authorization failed: {e}"))?;
        }
    }

    /// Puts `token` on `attempt`: `Bearer`, or `DPoP` with a fresh proof for a bound token
    /// (then the request's URL, whose origin's nonces apply).
    fn present(
        &self,
        attempt: &mut Request<Full<Bytes>>,
        token: Option<&StoredToken>,
        body: Option<&[u8]>,
    ) -> Result<Option<Url>, String> {
        let Some(token) = token else {
            return Ok(None);
        };
        let header = |v: String| HeaderValue::try_from(v).map_err(|e| e.to_string());
        let Some(dpop) = self.oauth.dpop().filter(|_| token.dpop_jkt.is_some()) else {
            let value = header(format!("Bearer {}", token.access_token))?;
            attempt.headers_mut().insert(AUTHORIZATION, value);
            return Ok(None);
        };
        let url = Url::parse(&attempt.uri().to_string()).map_err(|e| e.to_string())?;
        let method = attempt.method().as_str().to_owned();
        let proof = dpop
            .proof(&method, &url, Some(&token.access_token), body)
            .map_err(|e| e.to_string())?;
        let headers = attempt.headers_mut();
        headers.insert(
            AUTHORIZATION,
            header(format!("DPoP {}", token.access_token))?,
        );
        headers.insert("dpop", header(proof)?);
        Ok(Some(url))
    }

    /// A fresh token after `challenge` refused `used`.
    async fn recover(
        &self,
        challenge: &Challenge,
        used: Option<&StoredToken>,
        refresh: bool,
    ) -> Result<(), OAuthError> {
        let _gate = self.oauth.gate().await;
        let current = self.oauth.store().token(&self.server).await;
        let step_up = challenge.error.as_deref() == Some("insufficient_scope");
        let replaced = current.as_ref().map(|t| &t.access_token) != used.map(|t| &t.access_token);
        if replaced && current.is_some() && !step_up {
            // Another request already authorized while this one waited.
            return Ok(());
        }
        if step_up && let Some(current) = &current {
            let wanted = split_scopes(challenge.scope.as_deref());
            if wanted.is_empty() || wanted.iter().all(|s| current.scopes.contains(s)) {
                return Err(OAuthError::InsufficientScope(
                    challenge.scope.clone().unwrap_or_default(),
                ));
            }
        }
        self.oauth
            .grant(&self.server, challenge, current.as_ref(), refresh)
            .await
            .map(drop)
    }
}

/// `request` again (a `Full` body clones cheaply).
fn copy(request: &Request<Full<Bytes>>) -> Request<Full<Bytes>> {
    let mut copy = Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    copy
}
